import { describe, expect, it } from "vitest";
import { countedLength, formatText, mentionHandles, normalizeTag } from "./text-formatter.js";

const origin = "https://kith.test";
const bob = { id: "a1", username: "bob", domain: null, url: null };
const resolve = (handle: { username: string; domain: string | null }) => (handle.username === "bob" && handle.domain === null ? bob : null);

describe("formatText", () => {
  it("escapes everything and builds mention, hashtag and link anchors", () => {
    const result = formatText("Hi @bob <b>&</b> #Café https://example.com/x", origin, resolve);
    expect(result.html).toBe(
      '<p>Hi <span class="h-card" translate="no"><a href="https://kith.test/@bob" class="u-url mention">@<span>bob</span></a></span> &lt;b&gt;&amp;&lt;/b&gt; <a href="https://kith.test/tags/caf%C3%A9" class="mention hashtag" rel="tag">#<span>Café</span></a> <a href="https://example.com/x" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com/x</span><span class="invisible"></span></a></p>',
    );
    expect(result.mentions).toEqual([bob]);
    expect(result.tags).toEqual(["Café"]);
  });

  it("keeps unknown mentions as text and splits paragraphs and lines", () => {
    const result = formatText("@nobody@far.example\nline\n\n#1 x#y para", origin, resolve);
    expect(result.html).toBe("<p>@nobody@far.example<br />line</p><p>#1 x#y para</p>");
    expect(result.mentions).toEqual([]);
    expect(result.tags).toEqual([]);
  });

  it("reads handles whose host has a port, keeping trailing punctuation out", () => {
    const handles = mentionHandles("cc @bob@kith-b.test:3443, @eve@localhost:8443. @ann@example.com: hi @joe@localhost @kim@host.example:");
    expect(handles).toEqual([
      { username: "bob", domain: "kith-b.test:3443" },
      { username: "eve", domain: "localhost:8443" },
      { username: "ann", domain: "example.com" },
      { username: "kim", domain: "host.example" },
    ]);
    const remote = { id: "r1", username: "bob", domain: "kith-b.test:3443", url: "https://kith-b.test:3443/@bob" };
    const result = formatText("@bob@kith-b.test:3443: hello", origin, (handle) => (handle.domain === remote.domain ? remote : null));
    expect(result.mentions).toEqual([remote]);
    expect(result.html).toBe(
      '<p><span class="h-card" translate="no"><a href="https://kith-b.test:3443/@bob" class="u-url mention">@<span>bob</span></a></span>: hello</p>',
    );
  });

  it("does not read a handle with an unreadable host as a local mention", () => {
    expect(formatText("@bob@localhost hi", origin, resolve).mentions).toEqual([]);
  });

  it("resolves the mentions of a text formatted again anew, and keeps texts apart however many came between", () => {
    const text = "again @bob #same";
    expect(formatText(text, origin, resolve).mentions).toEqual([bob]);
    expect(formatText(text, origin, () => null).mentions).toEqual([]);
    for (let i = 0; i < 100; i++) expect(mentionHandles(`@user${i} and #t${i}`)).toEqual([{ username: `user${i}`, domain: null }]);
    expect(formatText(text, origin, resolve)).toMatchObject({ mentions: [bob], tags: ["same"] });
  });

  it("does not treat a link's fragment as a hashtag, and shortens long links", () => {
    const result = formatText("https://example.com/a/very/long/path/that/goes/on#frag", origin, resolve);
    expect(result.tags).toEqual([]);
    expect(result.html).toContain('<span class="ellipsis">example.com/a/very/long/path/t</span>');
  });
});

describe("counting", () => {
  it("counts links as 23 and remote mentions by their name", () => {
    expect(countedLength(`hi https://example.com/${"a".repeat(60)} @x@y.example 👍🏽`, 23)).toBe(3 + 23 + 1 + 2 + 1 + 1);
  });

  it("normalises tags with NFKC and lower case", () => {
    expect(normalizeTag("ＣＡＦＥ")).toBe("cafe");
  });
});
