import { z } from "zod";
import type { SafeFetch } from "../../platform/federation/safe-fetch.js";
import { type PageSummary, httpUrl, summarizePage } from "./card-page.js";

/** A card as read from a page, before it is stored. */
export interface ReadCard {
  /** The page's address after redirects (or its canonical one). */
  readonly url: string;
  readonly title: string;
  readonly description: string;
  readonly type: "link" | "photo" | "video" | "rich";
  readonly authorName: string;
  readonly authorUrl: string;
  readonly providerName: string;
  readonly providerUrl: string;
  readonly html: string;
  readonly width: number;
  readonly height: number;
  readonly image: string | null;
  readonly imageDescription: string;
  readonly embedUrl: string;
  readonly language: string | null;
  readonly publishedAt: string | null;
}

/** What Kith reads of an oEmbed document (oembed.com, section 2.3.4). */
const OEmbed = z.object({
  type: z.enum(["link", "photo", "video", "rich"]).catch("link"),
  title: z.string().optional().catch(undefined),
  author_name: z.string().optional().catch(undefined),
  author_url: z.string().optional().catch(undefined),
  provider_name: z.string().optional().catch(undefined),
  provider_url: z.string().optional().catch(undefined),
  html: z.string().optional().catch(undefined),
  url: z.string().optional().catch(undefined),
  width: z.coerce.number().int().positive().optional().catch(undefined),
  height: z.coerce.number().int().positive().optional().catch(undefined),
  thumbnail_url: z.string().optional().catch(undefined),
});
type OEmbedDocument = z.infer<typeof OEmbed>;

const HEADERS = { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1", "user-agent": "Kith (link preview)" };

/**
 * Reads the preview of a linked page: its OpenGraph, Twitter card and HTML
 * tags, and its oEmbed when it names one (which alone may make a video or
 * rich card, as an iframe Kith writes itself). Null when the page is not
 * HTML, does not answer, or says nothing worth a card.
 */
export async function readCard(link: string, fetch: SafeFetch): Promise<ReadCard | null> {
  const response = await fetch(link, { headers: HEADERS });
  if (!response.ok) return null;
  const type = (response.headers.get("content-type") ?? "").toLowerCase();
  if (!type.includes("text/html") && !type.includes("application/xhtml+xml")) return null;
  const pageUrl = new URL(response.url || link);
  const page = summarizePage(await response.text(), pageUrl);
  const oembed = page.oembedUrl ? await readOEmbed(page.oembedUrl, fetch) : null;
  const url = page.canonicalUrl ?? pageUrl.href;
  const title = oembed?.title ?? page.title;
  if (!title && !page.description && !oembed) return null;
  return cardOf(url, page, oembed);
}

async function readOEmbed(address: string, fetch: SafeFetch): Promise<OEmbedDocument | null> {
  try {
    const response = await fetch(address, { headers: { accept: "application/json", "user-agent": HEADERS["user-agent"] } });
    if (!response.ok) return null;
    const parsed = OEmbed.safeParse(await response.json());
    return parsed.success ? parsed.data : null;
  } catch {
    // A page whose oEmbed fails still has its own tags.
    return null;
  }
}

function cardOf(url: string, page: PageSummary, oembed: OEmbedDocument | null): ReadCard {
  const base = new URL(url);
  const frame = oembed && (oembed.type === "video" || oembed.type === "rich") ? iframeOf(oembed) : null;
  const photo = oembed?.type === "photo" ? httpUrl(oembed.url ?? null, base) : null;
  const type = frame ? (oembed?.type as "video" | "rich") : photo ? "photo" : "link";
  return {
    url,
    title: oembed?.title ?? page.title ?? "",
    description: page.description ?? "",
    type,
    authorName: oembed?.author_name ?? page.authorName ?? "",
    authorUrl: httpUrl(oembed?.author_url ?? null, base) ?? "",
    providerName: oembed?.provider_name ?? page.siteName ?? "",
    providerUrl: httpUrl(oembed?.provider_url ?? null, base) ?? "",
    html: frame?.html ?? "",
    width: frame?.width ?? (photo ? (oembed?.width ?? 0) : (page.imageWidth ?? 0)),
    height: frame?.height ?? (photo ? (oembed?.height ?? 0) : (page.imageHeight ?? 0)),
    image: photo ?? page.image ?? httpUrl(oembed?.thumbnail_url ?? null, base),
    imageDescription: page.imageDescription ?? "",
    embedUrl: photo ?? "",
    language: page.language,
    publishedAt: page.publishedAt,
  };
}

/**
 * The iframe of an oEmbed's `html`, written anew from its https `src` and
 * size alone, so that nothing else of the provider's markup (scripts,
 * handlers) reaches a client; null when it holds no such iframe.
 */
export function iframeOf(oembed: OEmbedDocument): { html: string; width: number; height: number } | null {
  const src = /<iframe\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/i.exec(oembed.html ?? "")?.[1];
  if (src === undefined) return null;
  let url: URL;
  try {
    url = new URL(src.replaceAll("&amp;", "&"));
  } catch {
    return null;
  }
  if (url.protocol !== "https:") return null;
  const width = oembed.width ?? 480;
  const height = oembed.height ?? 270;
  const escaped = url.href.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
  return {
    html: `<iframe src="${escaped}" width="${width}" height="${height}" frameborder="0" allowfullscreen="true"></iframe>`,
    width,
    height,
  };
}
