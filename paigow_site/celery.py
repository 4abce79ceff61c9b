"""The Celery app: Redis when REDIS_URL is set, eager (in-process) otherwise.

The broker settings live in Django settings under the CELERY_ namespace, so the
environment decides in one place.
"""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")

app = Celery("paigow_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
