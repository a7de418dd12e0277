# Multi-stage: build with the Swift toolchain, run on a slim Ubuntu with a static Swift stdlib.
FROM swift:6.2-noble AS build
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product fcm-emu --static-swift-stdlib \
    && mkdir /out && cp -R "$(swift build -c release --show-bin-path)/fcm-emu" \
        "$(swift build -c release --show-bin-path)/fcm-emu_FCMHTTP.resources" /out/

FROM ubuntu:24.04
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --uid 10001 fcm
# The binary and, beside it, its resource bundle (the control API's OpenAPI document).
COPY --from=build /out/ /usr/local/bin/
USER fcm
# Service-account keys and the local CA live here (the state directory).
ENV HOME=/home/fcm
EXPOSE 9092 9093 5235 5236
# Inside the container the emulator must listen on all interfaces to be reachable.
ENTRYPOINT ["fcm-emu"]
CMD ["serve", "--host", "0.0.0.0", "--port", "9092", "--set", "tlsPort=9093"]
