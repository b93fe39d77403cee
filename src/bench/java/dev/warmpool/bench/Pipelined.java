package dev.warmpool.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * A lean HTTP/1.1 client for the burst: a few keep-alive connections, each with a window of
 * requests in flight (pipelined), the same request bytes every time. The JDK's HttpClient
 * spends 2-3 ms of CPU per request here, and the client shares the two cores with what it
 * measures.
 */
final class Pipelined {
    private Pipelined() {}

    static List<String> post(String base, String path, String body, int n, int connections, int window)
            throws Exception {
        return post(base, path, body, n, connections, window, r -> Harness.id(json(r)));
    }

    /** {@code n} POSTs of {@code body}; {@code take} gets what is wanted from each 202's body. */
    static List<String> post(
            String base,
            String path,
            String body,
            int n,
            int connections,
            int window,
            java.util.function.Function<String, String> take)
            throws Exception {
        URI uri = URI.create(base);
        byte[] request = ("POST " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                        + "\r\nAuthorization: Bearer " + Harness.TOKEN
                        + "\r\nContent-Type: application/json\r\nContent-Length: "
                        + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                        + "\r\n\r\n" + body)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        List<CompletableFuture<List<String>>> parts = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            int share = n / connections + (c < n % connections ? 1 : 0);
            parts.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return one(uri, request, share, window, take);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        List<String> ids = new ArrayList<>();
        for (CompletableFuture<List<String>> part : parts) {
            ids.addAll(part.get());
        }
        return ids;
    }

    private static List<String> one(
            URI uri, byte[] request, int n, int window, java.util.function.Function<String, String> take)
            throws Exception {
        try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
            socket.setTcpNoDelay(true);
            Semaphore slots = new Semaphore(window);
            java.io.OutputStream out = socket.getOutputStream();
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        slots.acquire();
                        out.write(request);
                        out.flush();
                    }
                } catch (Exception e) {
                    // the reader sees the connection end
                }
            });
            writer.setDaemon(true);
            writer.start();
            java.io.DataInputStream in =
                    new java.io.DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String status = line(in);
                int length = -1;
                boolean chunked = false;
                for (String h = line(in); !h.isEmpty(); h = line(in)) {
                    if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
                        length = Integer.parseInt(h.substring(15).trim());
                    }
                    chunked |= h.regionMatches(true, 0, "transfer-encoding:", 0, 18)
                            && h.toLowerCase().contains("chunked");
                }
                java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
                if (chunked) {
                    for (int size = Integer.parseInt(line(in).split(";")[0].trim(), 16);
                            size > 0;
                            size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) {
                        body.write(in.readNBytes(size));
                        line(in);
                    }
                    line(in);
                } else if (length >= 0) {
                    body.write(in.readNBytes(length));
                } else {
                    throw new IllegalStateException("a response without Content-Length or chunks: " + status);
                }
                String text = body.toString(java.nio.charset.StandardCharsets.UTF_8);
                if (!status.contains(" 202 ")) {
                    throw new IllegalStateException(status + " " + text);
                }
                ids.add(take.apply(text));
                slots.release();
            }
            return ids;
        }
    }

    static com.fasterxml.jackson.databind.JsonNode json(String text) {
        try {
            return dev.warmpool.ManagerProcess.JSON.readTree(text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String line(java.io.DataInputStream in) throws java.io.IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new java.io.EOFException("the manager closed the connection");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }
}
