from tests.conftest import ServerProcess


def test_server_answers_select_one(server: ServerProcess) -> None:
    assert server.query("SELECT 1") == [(1,)]
