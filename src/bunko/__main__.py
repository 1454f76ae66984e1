from bunko.cli import app

app(prog_name="bunko")
