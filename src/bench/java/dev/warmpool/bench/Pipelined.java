package dev.warmpool.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.ManagerProcess;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

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
            String base, String path, String body, int n, int connections, int window, Function<String, String> take)
            throws Exception {
        URI uri = URI.create(base);
        byte[] request = ("POST " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                        + "\r\nAuthorization: Bearer " + Harness.TOKEN
                        + "\r\nContent-Type: application/json\r\nContent-Length: "
                        + body.getBytes(StandardCharsets.UTF_8).length
                        + "\r\n\r\n" + body)
                .getBytes(StandardCharsets.UTF_8);
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

    private static List<String> one(URI uri, byte[] request, int n, int window, Function<String, String> take)
            throws Exception {
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setTcpNoDelay(true);
            Semaphore slots = new Semaphore(window);
            OutputStream out = socket.getOutputStream();
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
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
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
                ByteArrayOutputStream body = new ByteArrayOutputStream();
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
                String text = body.toString(StandardCharsets.UTF_8);
                if (!status.contains(" 202 ")) {
                    throw new IllegalStateException(status + " " + text);
                }
                ids.add(take.apply(text));
                slots.release();
            }
            return ids;
        }
    }

    static JsonNode json(String text) {
        try {
            return ManagerProcess.JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String line(DataInputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("the manager closed the connection");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }
}
