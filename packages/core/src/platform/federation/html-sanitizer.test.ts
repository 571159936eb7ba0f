import { describe, expect, it } from "vitest";
import { sanitizeHtml, textOfHtml } from "./html-sanitizer.js";

describe("sanitizeHtml", () => {
  it("keeps the tags and classes of a Mastodon post", () => {
    const html =
      '<p>Hi <span class="h-card"><a href="https://x.example/@a" class="u-url mention">@<span>a</span></a></span> <a href="https://x.example/tags/kith" class="mention hashtag" rel="tag">#kith</a></p><p>two<br>lines</p>';
    expect(sanitizeHtml(html)).toBe(
      '<p>Hi <span class="h-card"><a href="https://x.example/@a" class="u-url mention" rel="nofollow noopener noreferrer" target="_blank">@<span>a</span></a></span> <a href="https://x.example/tags/kith" class="mention hashtag" rel="nofollow noopener noreferrer" target="_blank">#kith</a></p><p>two<br>lines</p>',
    );
  });

  it("drops scripts, handlers, unknown tags and unsafe links", () => {
    expect(sanitizeHtml('<p onclick="x()">a<script>alert(1)</script><img src=x onerror=y>b</p>')).toBe("<p>ab</p>");
    expect(sanitizeHtml('<a href="javascript:alert(1)">x</a>')).toBe('<a rel="nofollow noopener noreferrer" target="_blank">x</a>');
    expect(sanitizeHtml('<a href="jav&#x61;script:alert(1)">x</a>')).toBe('<a rel="nofollow noopener noreferrer" target="_blank">x</a>');
    expect(sanitizeHtml("<style>p{}</style><iframe src=x></iframe>ok")).toBe("ok");
    expect(sanitizeHtml('<p class="evil mention">x</p>')).toBe('<p class="mention">x</p>');
  });

  it("closes what it opened and escapes stray brackets", () => {
    expect(sanitizeHtml("<p><b>bold")).toBe("<p><b>bold</b></p>");
    expect(sanitizeHtml("<p>a</b>b</p>")).toBe("<p>ab</p>");
    expect(sanitizeHtml("1 < 2 > 0")).toBe("1 &lt; 2 &gt; 0");
    expect(sanitizeHtml("<!-- hidden -->x")).toBe("x");
  });

  it("gives the text of a post", () => {
    expect(textOfHtml("<p>a &amp; b</p><p>c<br>d</p>")).toBe("a & b\n\nc\nd");
  });

  it("marks a link whose text shows another host than its href, with the real address", () => {
    const marked = sanitizeHtml('<p>Log in at <a href="https://evil.example/login" title="https://bank.example">bank.example/login</a></p>');
    expect(marked).toBe(
      '<p>Log in at <a title="https://evil.example/login" href="https://evil.example/login" rel="nofollow noopener noreferrer" target="_blank">bank.example/login</a> <span class="link-origin">[evil.example]</span></p>',
    );
    // Hidden characters and a scheme in the text do not hide the host it shows.
    expect(sanitizeHtml('<a href="https://evil.example/">https://bank\u200B.example</a>')).toContain("[evil.example]");
    expect(sanitizeHtml('<a href="http://xn--bnk-ela.example/">bank.example</a>')).toContain("[xn--bnk-ela.example]");
  });

  it("leaves honest links unmarked: Mastodon's own, words, mentions, hashtags and the same host", () => {
    const honest = [
      '<a href="https://x.example/very/long/path"><span class="invisible">https://</span><span class="ellipsis">x.example/very/lo</span><span class="invisible">ng/path</span></a>',
      '<a href="https://www.x.example/a">x.example/a</a>',
      '<a href="https://x.example/a">read the whole story</a>',
      '<a href="https://x.example/@a" class="u-url mention">@<span>a</span></a>',
      '<a href="https://x.example/tags/kith" class="mention hashtag">#kith</a>',
    ];
    for (const html of honest) expect(sanitizeHtml(html)).not.toContain("link-origin");
  });

  it("keeps a remote link-origin class from faking the mark", () => {
    expect(sanitizeHtml('<span class="link-origin">[bank.example]</span>')).toBe("<span>[bank.example]</span>");
  });
});
