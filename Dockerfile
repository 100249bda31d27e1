# Homar in a container: slim Python, the pinned runtime lock, a non-root user, data in
# a volume, and a health check on /healthz. Build: docker build -t homar .
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --system --uid 10001 --user-group --home-dir /app --no-create-home homar \
    && mkdir -p /data && chown homar:homar /data

WORKDIR /app
# Dependencies first, so a code change rebuilds only the last layers.
COPY requirements.lock ./
RUN pip install --no-deps -r requirements.lock
COPY pyproject.toml README.md LICENSE ./
COPY bot ./bot
COPY tools ./tools
COPY storage ./storage
RUN pip install --no-deps .

USER 10001:10001
ENV DATABASE_URL=sqlite+aiosqlite:////data/homar.db \
    HEALTH_PORT=8080 \
    LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8080
# SIGTERM lets in-flight deliveries finish (SHUTDOWN_GRACE); give it time before SIGKILL.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["homar", "healthcheck"]
ENTRYPOINT ["homar"]
CMD ["run"]
