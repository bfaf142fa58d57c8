from drydock.server.cli import main

main()
