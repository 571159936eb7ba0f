import { describe, expect, it } from "vitest";
import {
  ACCOUNTS_PAGE,
  DEFAULT_PAGE,
  POSTS_PAGE,
  clampLimit,
  cursorPageLinks,
  idPageLinks,
  pageRequest,
  pagedReply,
} from "./pagination.js";

const BASE = new URL("https://kith.test/api/v1/timelines/home?local=true");

/** Queries whose links are easy to get wrong: repeated and bracketed keys, escapes, ports, empty values, a fragment. */
const TRICKY_TARGETS = [
  "https://kith.test/api/v1/timelines/home",
  "https://kith.test:8443/api/v1/notifications?types[]=mention&types[]=favourite&exclude_types%5B%5D=follow",
  "http://127.0.0.1:3000/api/v1/timelines/tag/caf%C3%A9?any=a%20b&any=c+d&only_media=true&max_id=x",
  "https://kith.test/api/v1/timelines/public?q=%26%3D%3F&empty=&limit=99#fragment",
];

/** A page link for `base` as the URL class writes it: paging parameters and the fragment dropped, `changes` set. */
function asTheUrlWould(base: URL): (changes: Record<string, string>) => string {
  return (changes) => {
    const url = new URL(base);
    for (const key of ["max_id", "min_id", "since_id", "cursor", "access_token"]) url.searchParams.delete(key);
    for (const [key, value] of Object.entries(changes)) url.searchParams.set(key, value);
    url.hash = "";
    return url.toString();
  };
}

/** The Link header as { rel: url }. */
function linksOf(header: string | null): Record<string, URL> {
  const links: Record<string, URL> = {};
  for (const part of (header ?? "").split(",")) {
    const match = /<([^>]+)>;\s*rel="(\w+)"/.exec(part.trim());
    if (match?.[1] && match[2]) links[match[2]] = new URL(match[1]);
  }
  return links;
}

describe("page limits", () => {
  it("default when absent", () => {
    expect(clampLimit(undefined, POSTS_PAGE)).toBe(POSTS_PAGE.defaultLimit);
    expect(clampLimit(undefined, DEFAULT_PAGE)).toBe(20);
  });

  it("keep a limit inside the range", () => {
    expect(clampLimit(7, POSTS_PAGE)).toBe(7);
  });

  it("clamp a limit above the maximum to the maximum", () => {
    expect(clampLimit(1_000, POSTS_PAGE)).toBe(40);
    expect(clampLimit(1_000, ACCOUNTS_PAGE)).toBe(80);
  });

  it("clamp zero and negative limits to one", () => {
    expect(clampLimit(0, POSTS_PAGE)).toBe(1);
    expect(clampLimit(-5, POSTS_PAGE)).toBe(1);
  });

  it("drop the fraction of a fractional limit", () => {
    expect(clampLimit(3.9, POSTS_PAGE)).toBe(3);
  });

  it("default when the limit is not a finite number", () => {
    expect(clampLimit(Number.NaN, POSTS_PAGE)).toBe(20);
    expect(clampLimit(Number.POSITIVE_INFINITY, POSTS_PAGE)).toBe(20);
  });
});

describe("page requests", () => {
  it("carry the clamped limit and the id bounds given", () => {
    expect(pageRequest({ limit: 500, max_id: "st_9", since_id: "st_1" }, POSTS_PAGE)).toEqual({
      limit: 40,
      maxId: "st_9",
      sinceId: "st_1",
    });
  });

  it("leave out the bounds not given", () => {
    expect(pageRequest({}, POSTS_PAGE)).toEqual({ limit: 20 });
  });
});

describe("Link headers of id-ordered pages", () => {
  it("are absent for an empty page", () => {
    expect(idPageLinks(BASE, [], 20)).toBeNull();
  });

  it("offer the next page below the last id when the page is full", () => {
    const links = linksOf(idPageLinks(BASE, ["st_3", "st_2", "st_1"], 3));
    expect(links.next?.searchParams.get("max_id")).toBe("st_1");
    expect(links.next?.searchParams.get("limit")).toBe("3");
  });

  it("offer no next page when the page is not full", () => {
    const links = linksOf(idPageLinks(BASE, ["st_3", "st_2"], 3));
    expect(links.next).toBeUndefined();
  });

  it("offer the previous page above the first id", () => {
    const links = linksOf(idPageLinks(BASE, ["st_3", "st_2"], 3));
    expect(links.prev?.searchParams.get("min_id")).toBe("st_3");
    expect(links.prev?.searchParams.get("limit")).toBe("3");
  });

  it("keep the path and other query parameters", () => {
    const links = linksOf(idPageLinks(BASE, ["st_3"], 1));
    for (const link of [links.next, links.prev]) {
      expect(link?.origin).toBe("https://kith.test");
      expect(link?.pathname).toBe("/api/v1/timelines/home");
      expect(link?.searchParams.get("local")).toBe("true");
    }
  });

  it("replace the bounds of the request with the page's own", () => {
    const base = new URL("https://kith.test/api/v1/timelines/home?max_id=st_9&since_id=st_0&min_id=st_0&cursor=c");
    const links = linksOf(idPageLinks(base, ["st_5", "st_4"], 2));
    expect([...(links.next?.searchParams.keys() ?? [])].sort()).toEqual(["limit", "max_id"]);
    expect([...(links.prev?.searchParams.keys() ?? [])].sort()).toEqual(["limit", "min_id"]);
  });

  it("write each link as the URL would, whatever the query holds", () => {
    for (const target of TRICKY_TARGETS) {
      const expected = asTheUrlWould(new URL(target));
      expect(idPageLinks(new URL(target), ["st_2", "st_1"], 2), target).toBe(
        `<${expected({ max_id: "st_1", limit: "2" })}>; rel="next", <${expected({ min_id: "st_2", limit: "2" })}>; rel="prev"`,
      );
    }
  });

  it("never carry an access token from the query string", () => {
    const base = new URL("https://kith.test/api/v1/timelines/home?access_token=secret-token");
    const header = idPageLinks(base, ["st_2", "st_1"], 2);
    expect(header).not.toBeNull();
    expect(header).not.toContain("secret-token");
  });
});

describe("Link headers of cursor-ordered pages", () => {
  it("carry each cursor given", () => {
    const links = linksOf(cursorPageLinks(BASE, { next: "n1", prev: "p1" }, 10));
    expect(links.next?.searchParams.get("cursor")).toBe("n1");
    expect(links.prev?.searchParams.get("cursor")).toBe("p1");
    expect(links.next?.searchParams.get("limit")).toBe("10");
  });

  it("leave out a missing cursor", () => {
    const links = linksOf(cursorPageLinks(BASE, { next: null, prev: "p1" }, 10));
    expect(links.next).toBeUndefined();
    expect(links.prev).toBeDefined();
  });

  it("write each link as the URL would, whatever the query holds", () => {
    for (const target of TRICKY_TARGETS) {
      const expected = asTheUrlWould(new URL(target));
      expect(cursorPageLinks(new URL(target), { next: "n 1", prev: "p&1" }, 2), target).toBe(
        `<${expected({ cursor: "n 1", limit: "2" })}>; rel="next", <${expected({ cursor: "p&1", limit: "2" })}>; rel="prev"`,
      );
    }
  });

  it("never carry an access token from the query string", () => {
    const base = new URL("https://kith.test/api/v1/notifications?access_token=secret-token");
    expect(cursorPageLinks(base, { next: "n1", prev: "p1" }, 10)).not.toContain("secret-token");
  });

  it("are absent when there is neither cursor", () => {
    expect(cursorPageLinks(BASE, { next: null, prev: null }, 10)).toBeNull();
  });
});

describe("paged replies", () => {
  it("send the items as JSON with the Link header", async () => {
    const response = pagedReply(BASE, [{ id: "st_2" }, { id: "st_1" }], 2).toResponse();
    expect(await response.json()).toEqual([{ id: "st_2" }, { id: "st_1" }]);
    expect(linksOf(response.headers.get("link")).next?.searchParams.get("max_id")).toBe("st_1");
  });

  it("send no Link header for an empty list", () => {
    expect(pagedReply(BASE, [], 20).toResponse().headers.has("link")).toBe(false);
  });
});
