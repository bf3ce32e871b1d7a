from kbapp.cli.main import run

run()
