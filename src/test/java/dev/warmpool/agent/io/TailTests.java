package dev.warmpool.agent.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class TailTests {
    @Test
    void keepsOnlyTheLastBytes() {
        Tail t = new Tail(4);
        t.readAll(new ByteArrayInputStream("abcdefghij".getBytes(StandardCharsets.UTF_8)));
        assertEquals("ghij", t.text());
    }

    @Test
    void passesOnTheReportLinesAndKeepsThemInTheTail() {
        Tail t = new Tail(1024);
        List<String> reports = new ArrayList<>();
        String out =
                "epoch 1\nWARMPOOL_REPORT {\"step\": 1}\n  WARMPOOL_REPORT {\"indented\": 1}\nWARMPOOL_REPORT {\"step\": 2}\nWARMPOOL_REPORT {\"cut\"";
        t.readAll(new ByteArrayInputStream(out.getBytes(StandardCharsets.UTF_8)), "WARMPOOL_REPORT ", reports::add);
        assertEquals(List.of("{\"step\": 1}", "{\"step\": 2}"), reports, "whole marked lines only");
        assertEquals(out, t.text());
    }

    @Test
    void aReportLineOverTheBoundIsOnlyOutput() {
        Tail t = new Tail(1024);
        List<String> reports = new ArrayList<>();
        // cut at the bound, it would still parse: as a report the job never made
        String out =
                "WARMPOOL_REPORT {\"step\": 1}" + " ".repeat(Tail.MAX_REPORT) + "}\nWARMPOOL_REPORT {\"step\": 2}\n";
        t.readAll(new ByteArrayInputStream(out.getBytes(StandardCharsets.UTF_8)), "WARMPOOL_REPORT ", reports::add);
        assertEquals(List.of("{\"step\": 2}"), reports);
    }

    @Test
    void keepsEverythingWhenShort() {
        Tail t = new Tail(16);
        t.readAll(new ByteArrayInputStream("hi\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("hi\n", t.text());
    }

    @Test
    void replacesACutMultiByteCharacter() {
        Tail t = new Tail(3);
        t.readAll(new ByteArrayInputStream("xé€".getBytes(StandardCharsets.UTF_8))); // € is 3 bytes
        assertEquals("€", t.text());
        Tail cut = new Tail(4);
        cut.readAll(new ByteArrayInputStream("é€".getBytes(StandardCharsets.UTF_8))); // keeps half of é
        assertEquals("\uFFFD€", cut.text());
    }

    /** Output in reads of odd sizes, so that the ring grows and then wraps in the middle of a read. */
    @Test
    void growsWithTheOutputAndThenKeepsTheLastBytes() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; out.length() < 40_000; i++) {
            out.append("line ").append(i).append('\n');
        }
        byte[] bytes = out.toString().getBytes(StandardCharsets.UTF_8);
        for (int length : new int[] {300, 513, 1_000, 16_384, 16_385, bytes.length}) {
            Tail t = new Tail(16_384);
            t.readAll(new ByteArrayInputStream(bytes, 0, length) {
                @Override
                public synchronized int read(byte[] b, int off, int len) {
                    return super.read(b, off, Math.min(len, 777));
                }
            });
            String kept =
                    new String(bytes, Math.max(0, length - 16_384), Math.min(length, 16_384), StandardCharsets.UTF_8);
            assertEquals(kept, t.text(), length + " bytes of output");
        }
    }
}
