"""Django against a drydock server, as an application uses it: `migrate` of the contrib apps
(auth, contenttypes, sessions, admin) on a fresh database, ORM CRUD, lookups, aggregates, nested
atomic(), sessions, deletes and inspectdb. Run in a process of its own (Django's settings are
global) by tests/clients/test_django.py. Prints one `OK <step>` line per step; the first
failure raises. argv: host port database"""

from __future__ import annotations

import io
import sys

import django
from django.conf import settings

host, port, database = sys.argv[1], int(sys.argv[2]), sys.argv[3]
settings.configure(
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.mysql",
            "NAME": database,
            "USER": "root",
            "PASSWORD": "",
            "HOST": host,
            "PORT": port,
            "OPTIONS": {"charset": "utf8mb4"},
        }
    },
    INSTALLED_APPS=[
        "django.contrib.auth",
        "django.contrib.contenttypes",
        "django.contrib.sessions",
        "django.contrib.admin",
        "django.contrib.messages",
    ],
    USE_TZ=True,
    SECRET_KEY="not-a-secret",
    DEFAULT_AUTO_FIELD="django.db.models.AutoField",
)
django.setup()

from django.contrib.admin.models import ADDITION, LogEntry  # noqa: E402
from django.contrib.auth.models import Group, Permission, User  # noqa: E402
from django.contrib.contenttypes.models import ContentType  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import IntegrityError, transaction  # noqa: E402
from django.db.models import Avg, Count, Max, Q  # noqa: E402


def ok(step: str) -> None:
    print("OK", step, flush=True)


call_command("migrate", verbosity=0, interactive=False)
ok("migrate")

alice = User.objects.create_user("alice", "alice@example.com", "pw", first_name="Alice")
bob = User.objects.create_user("bob", "bob@example.com", "pw", is_staff=True)
editors = Group.objects.create(name="editors")
editors.permissions.add(*Permission.objects.filter(codename__startswith="change_"))
alice.groups.add(editors)
assert alice.has_perm("auth.change_user"), "permission through a group"
ok("crud")

assert User.objects.filter(username__iexact="ALICE").get().pk == alice.pk
assert list(
    User.objects.filter(email__icontains="EXAMPLE")
    .order_by("username")
    .values_list("username", flat=True)
) == ["alice", "bob"]
assert User.objects.filter(Q(is_staff=True) | Q(first_name="Alice")).count() == 2
assert User.objects.exclude(username__in=["bob"]).get().username == "alice"
assert User.objects.filter(date_joined__year=alice.date_joined.year).count() == 2
assert User.objects.filter(groups__name="editors").distinct().count() == 1
ok("lookups")

counts = dict(Group.objects.annotate(n=Count("user")).values_list("name", "n"))
assert counts == {"editors": 1}, counts
summary = User.objects.aggregate(Avg("id"), Max("username"))
assert summary["username__max"] == "bob"
assert float(summary["id__avg"]) == (alice.pk + bob.pk) / 2, summary
ok("aggregates")

with transaction.atomic():
    User.objects.create_user("carol")
    try:
        with transaction.atomic():
            User.objects.create_user("alice")  # duplicate username
    except IntegrityError:
        pass
    else:
        raise AssertionError("a duplicate username must raise IntegrityError")
    user, created = User.objects.get_or_create(username="carol")
    assert not created
assert User.objects.filter(username="carol").exists(), "work before the savepoint was kept"
ok("nested_atomic")

store = SessionStore()
store["k"] = "v"
store.save()
assert SessionStore(session_key=store.session_key)["k"] == "v"
LogEntry.objects.log_action(
    alice.pk, ContentType.objects.get_for_model(User).pk, bob.pk, "bob", ADDITION
)
bob.delete()  # cascades to bob's log entries and group links (Django's own collector)
assert not User.objects.filter(username="bob").exists()
User.objects.filter(username="alice").update(first_name="Al")
assert User.objects.get(username="alice").first_name == "Al"
ok("sessions_delete_update")

out = io.StringIO()
call_command("inspectdb", "auth_user", "auth_user_groups", stdout=out)
text = out.getvalue()
assert "class AuthUser(models.Model):" in text, text
assert "username = models.CharField(unique=True, max_length=150)" in text, text
assert "models.ForeignKey(AuthUser, models.DO_NOTHING)" in text, text
ok("inspectdb")
