# Production image: gunicorn for the web, the same image runs the Celery worker.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    STATIC_ROOT=/app/staticfiles MEDIA_ROOT=/data/media

# WeasyPrint renders the annexes: it needs Pango and its fonts.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core curl \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt
COPY . .
RUN DEBUG=false SECRET_KEY=build-only python manage.py collectstatic --noinput \
 && useradd --system --uid 1000 clusterbid && mkdir -p /data/media && chown -R clusterbid /data
USER clusterbid

EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
