# Joins the two migrations made side by side after 0002.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0003_client_messages"),
        ("games", "0003_reports_audit"),
    ]

    operations = []
