# syntax=docker/dockerfile:1
# Multi-stage build of the tenantkit reference server: a static binary
# (pure-Go SQLite, no cgo) in a distroless image, running as non-root.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/server ./cmd/server

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/server /server
USER nonroot:nonroot
WORKDIR /home/nonroot
EXPOSE 8080
ENV TENANTKIT_ADDR=:8080 \
    TENANTKIT_DATABASE_URL=sqlite:/home/nonroot/tenantkit.db
ENTRYPOINT ["/server"]
CMD ["serve"]
