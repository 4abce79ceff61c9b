# One image for web (daphne), worker and beat (celery).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    UV_PYTHON_DOWNLOADS=never UV_PROJECT_ENVIRONMENT=/opt/venv PATH=/opt/venv/bin:$PATH

RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm \
 && rm -rf /var/lib/apt/lists/* \
 && pip install --no-cache-dir uv==0.13.9

WORKDIR /app
COPY pyproject.toml uv.lock ./
RUN uv sync --frozen --no-dev --no-install-project
COPY frontend/package.json frontend/package-lock.json frontend/
RUN cd frontend && npm ci --no-audit --no-fund
COPY . .
# Production serves static files from staticfiles/ through whitenoise's
# manifest (hashed names): without this step every page is a 500.
RUN python frontend/build.py \
 && DJANGO_DEBUG=0 SECRET_KEY=build-only-not-secret-build-only-not-secret-build-only \
    ALLOWED_HOSTS=build python manage.py collectstatic --noinput

EXPOSE 8000
USER nobody
# daphne with invite tokens redacted from its access log (paigow_site/server.py).
CMD ["python", "-m", "paigow_site.server", "-b", "0.0.0.0", "-p", "8000", "paigow_site.asgi:application"]
