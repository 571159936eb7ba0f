import { describe, expect, it } from "vitest";
import { customEmojiUrls, shortcodesIn } from "./custom-emoji.js";

describe("shortcodesIn", () => {
  it("finds each :shortcode: once, where Mastodon finds one", () => {
    expect(shortcodesIn(["hi :blobcat: and :blob_fox:!", "<p>:blobcat:</p>", null, undefined])).toEqual(["blobcat", "blob_fox"]);
  });

  it("passes over a shortcode inside a word, glued to another, too short, or with other characters", () => {
    expect(shortcodesIn(["word:blobcat:", ":a:", ":blob-cat:", "::double::", "https://x.example:443/"])).toEqual([]);
    expect(shortcodesIn([":one::two:"])).toEqual([]);
  });

  it("reads no more than a hundred shortcodes of one text", () => {
    const many = Array.from({ length: 150 }, (_, i) => `:code${i}:`).join(" ");
    expect(shortcodesIn([many])).toHaveLength(100);
  });
});

describe("customEmojiUrls", () => {
  const served = { publicUrl: () => null };
  it("serves a local image from the server, its still when it has one", () => {
    const urls = customEmojiUrls({ id: "em_1", image_key: "emojis/em_1/image-ab.gif", static_key: "emojis/em_1/static-cd.png", image_remote_url: null }, "https://k.test", served);
    expect(urls).toEqual({ url: "https://k.test/emojis/em_1/image-ab.gif", staticUrl: "https://k.test/emojis/em_1/static-cd.png" });
  });

  it("takes a blob store's own URL, another server's image as it is, and none without an image", () => {
    const store = { publicUrl: (key: string) => `https://cdn.test/${key}` };
    expect(customEmojiUrls({ id: "em_1", image_key: "emojis/em_1/image-ab.png", static_key: null, image_remote_url: null }, "https://k.test", store)).toEqual({
      url: "https://cdn.test/emojis/em_1/image-ab.png",
      staticUrl: "https://cdn.test/emojis/em_1/image-ab.png",
    });
    expect(customEmojiUrls({ id: "em_2", image_key: null, static_key: null, image_remote_url: "https://o.test/e.png" }, "https://k.test", served)).toEqual({
      url: "https://o.test/e.png",
      staticUrl: "https://o.test/e.png",
    });
    expect(customEmojiUrls({ id: "em_3", image_key: null, static_key: null, image_remote_url: null }, "https://k.test", served)).toBeNull();
  });
});
