import { describe, expect, it } from "vitest";
import { summarizePage } from "./card-page.js";
import { iframeOf } from "./page-reader.js";
import { previewableLink } from "./status-links.js";

const base = new URL("https://news.example/a/b");

describe("summarizePage", () => {
  it("prefers OpenGraph, then Twitter card tags, then the page's own title and description", () => {
    const twitter = summarizePage(
      '<head><title> Own </title><meta name="twitter:title" content="Tw"><meta name="description" content="Desc"></head>',
      base,
    );
    expect(twitter).toMatchObject({ title: "Tw", description: "Desc", image: null, language: null });
    expect(summarizePage("<title>  Only\n the   title </title>", base).title).toBe("Only the title");
    expect(summarizePage('<meta property="og:title" content="OG"><meta property="og:title" content="second">', base).title).toBe("OG");
  });

  it("resolves addresses against the page and keeps http(s) ones only", () => {
    const page = summarizePage(
      '<meta property="og:image" content="../img.png"><link rel="canonical" href="javascript:alert(1)"><link rel="alternate" type="application/json+oembed" href="/oembed?u=1">',
      base,
    );
    expect(page.image).toBe("https://news.example/img.png");
    expect(page.canonicalUrl).toBeNull();
    expect(page.oembedUrl).toBe("https://news.example/oembed?u=1");
  });

  it("reads the language from og:locale or the html element, and bounds long texts", () => {
    expect(summarizePage('<html lang="pt-BR"><head></head></html>', base).language).toBe("pt");
    expect(summarizePage('<meta property="og:locale" content="de_DE">', base).language).toBe("de");
    const long = summarizePage(`<meta property="og:description" content="${"x".repeat(3_000)}">`, base).description ?? "";
    expect([...long]).toHaveLength(2_000);
    expect(long.endsWith("…")).toBe(true);
  });
});

describe("previewableLink", () => {
  const origin = "https://kith.test";
  it("takes the first link that is no mention, hashtag or link to this server", () => {
    const html =
      '<p><span class="h-card"><a href="https://other.example/@bob" class="u-url mention">@bob</a></span> ' +
      '<a href="https://kith.test/tags/cats" class="mention hashtag" rel="tag">#cats</a> ' +
      '<a href="https://kith.test/@alice/1">mine</a> <a href="https://news.example/story">story</a> <a href="https://second.example/">2</a></p>';
    expect(previewableLink(html, origin)).toBe("https://news.example/story");
  });
  it("finds none in text without links, or with links that are not http(s)", () => {
    expect(previewableLink("<p>plain</p>", origin)).toBeNull();
    expect(previewableLink('<a href="mailto:a@b.example">mail</a><a href="not a url">x</a>', origin)).toBeNull();
  });
});

describe("iframeOf", () => {
  it("writes an iframe of its own from an https src, and nothing for anything else", () => {
    expect(
      iframeOf({ type: "rich", html: '<iframe src="https://v.example/e?a=1&amp;b=2" onload="x()"></iframe>', width: 100, height: 50 }),
    ).toEqual({
      html: '<iframe src="https://v.example/e?a=1&amp;b=2" width="100" height="50" frameborder="0" allowfullscreen="true"></iframe>',
      width: 100,
      height: 50,
    });
    expect(iframeOf({ type: "video", html: '<iframe src="http://v.example/e"></iframe>' })).toBeNull();
    expect(iframeOf({ type: "video", html: "<script>x()</script>" })).toBeNull();
    expect(iframeOf({ type: "video", html: '<iframe src="https://v.example/a&quot;onload=&quot;x()"></iframe>' })?.html).not.toContain(
      '"onload',
    );
  });
});
