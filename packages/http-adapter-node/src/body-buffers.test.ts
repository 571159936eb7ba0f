import { describe, expect, it } from "vitest";
import { BodyBuffers, piecesLength, writePieces } from "./body-buffers.js";

describe("BodyBuffers", () => {
  it("gives buffers of at least the size asked, in powers of two from 16 KB", () => {
    const buffers = new BodyBuffers();
    expect(buffers.take(10).length).toBe(16 * 1024);
    expect(buffers.take(70_000).length).toBe(128 * 1024);
    expect(buffers.take(128 * 1024).length).toBe(128 * 1024);
  });

  it("uses a buffer handed back again, the smallest that fits", () => {
    const buffers = new BodyBuffers();
    const large = buffers.take(200_000);
    const small = buffers.take(70_000);
    buffers.give(large);
    buffers.give(small);
    expect(buffers.keptNow).toBe(large.length + small.length);
    expect(buffers.take(60_000)).toBe(small);
    expect(buffers.take(60_000)).toBe(large);
    expect(buffers.take(60_000)).not.toBe(small);
    expect(buffers.keptNow).toBe(0);
  });

  it("keeps no more than its bytes between answers, and no buffer over its largest", () => {
    const buffers = new BodyBuffers(256 * 1024, 128 * 1024);
    const [a, b, c] = [buffers.take(100_000), buffers.take(100_000), buffers.take(100_000)];
    buffers.give(a);
    buffers.give(b);
    buffers.give(c);
    expect(buffers.keptNow).toBe(256 * 1024);
    buffers.give(buffers.take(200_000));
    expect(buffers.keptNow).toBe(256 * 1024);
  });
});

describe("writePieces", () => {
  it("writes the UTF-8 of strings and bytes in order and measures it as it writes it", () => {
    const pieces = ['{"a":"caf\u00e9 \u{1f600}",', new TextEncoder().encode('"b":"\u00fc"'), "", ',"c":"\ud800"}'];
    const whole = `${pieces[0]}"b":"\u00fc"${pieces[3]}`;
    expect(piecesLength(pieces)).toBe(Buffer.byteLength(whole));
    // A buffer used before, with other bytes in it: only the view of what was written is the body.
    const buffer = Buffer.alloc(256, 0x78);
    const written = writePieces(pieces, buffer);
    expect(written.length).toBe(Buffer.byteLength(whole));
    expect(written.equals(Buffer.from(whole))).toBe(true);
  });
});
