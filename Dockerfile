# Production image: gunicorn for the web; the same image runs the Celery workers and beat.
#
# BASE is any Debian bookworm image with python3 (3.11): the official python slim image by
# default; CI passes a base it builds from Debian's own packages with mmdebstrap (.ci/image-smoke).
# Behind a TLS-intercepting proxy, give pip the CA bundle as a build secret; it is never baked in:
#   podman build --secret id=pipca,src="$SSL_CERT_FILE" .
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/venv PATH=/opt/venv/bin:$PATH \
    STATIC_ROOT=/app/staticfiles MEDIA_ROOT=/data/media

# WeasyPrint renders the annexes: Pango, HarfBuzz's subsetter and fonts. curl: health checks.
# python3-venv: the Debian base has no venv module otherwise (the slim image has it built in).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpango-1.0-0 libpangoft2-1.0-0 \
      libharfbuzz-subset0 fonts-dejavu-core curl ca-certificates \
      $(python3 -c 'import ensurepip' 2>/dev/null || echo python3-venv) \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/venv

WORKDIR /app
COPY requirements.txt .
RUN --mount=type=secret,id=pipca \
    if [ -s /run/secrets/pipca ]; then export PIP_CERT=/run/secrets/pipca; fi; \
    pip install -r requirements.txt
COPY . .
RUN DEBUG=false SECRET_KEY=build-only python manage.py collectstatic --noinput \
 && useradd --system --uid 1000 --create-home clusterbid && mkdir -p /data/media /data/metrics && chown -R clusterbid /data
USER clusterbid

EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
