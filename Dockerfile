# thea for server mode (see docker-compose.yml and docs/server-mode.md).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
# everything the wheel is built from (pyproject.toml: packages + force-included resources)
COPY pyproject.toml README.md ./
COPY thea ./thea
COPY services ./services
COPY workers ./workers
COPY cypher ./cypher
COPY config ./config
RUN pip install ".[server]" \
    && useradd --create-home --uid 10001 thea \
    && mkdir /data && chown thea:thea /data

USER thea
WORKDIR /home/thea
ENV THEA_PROFILE=server \
    THEA_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8000
CMD ["thea", "service", "run", "--host", "0.0.0.0", "--port", "8000"]
