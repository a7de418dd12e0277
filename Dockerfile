# fcm-emu's image: the static release binary on an empty base (`FROM scratch`), with the few C
# libraries it links and a writable state directory; 85 MB in all (README, "Install").
#
# The build stage compiles the binary and lays out the image's filesystem (scripts/rootfs); the
# runtime stage is that folder alone. CI builds the same runtime stage from its own release build
# with `scripts/image`, which takes every line below `FROM scratch` from this file.
FROM swift:6.2-noble AS build
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY scripts ./scripts
RUN swift build -c release --product fcm-emu --static-swift-stdlib \
    && strip -o /fcm-emu "$(swift build -c release --show-bin-path)/fcm-emu" \
    && scripts/rootfs /fcm-emu /rootfs

FROM scratch
COPY --from=build /rootfs/ /
COPY --from=build --chown=10001:10001 /rootfs/state/ /state/
USER 10001:10001
# Service-account keys, the local CA and snapshots live in the state directory (~/.fcm-emu).
ENV HOME=/state TMPDIR=/tmp
EXPOSE 9092 9093 5228 5235 5236
HEALTHCHECK --interval=10s --timeout=3s --start-period=2s CMD ["/usr/local/bin/fcm-emu", "health", "--timeout", "0", "--quiet"]
# Inside the container the emulator must listen on all interfaces to be reachable.
ENTRYPOINT ["/usr/local/bin/fcm-emu"]
CMD ["serve", "--host", "0.0.0.0", "--port", "9092", "--set", "tlsPort=9093"]
