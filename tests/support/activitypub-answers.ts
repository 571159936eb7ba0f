/** Reading the answers to ActivityPub GETs in tests. */

export const AP_ACCEPT = "application/activity+json";

/** The status and JSON body of an answer (`{ text }` when the body is not JSON). */
export async function jsonOf(response: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  const text = await response.text();
  try {
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  } catch {
    return { status: response.status, body: { text } };
  }
}

/** The request with its signature's bytes changed: it no longer verifies with any key. */
export function tampered(request: Request): Request {
  const headers = new Headers(request.headers);
  const signature = headers.get("signature") ?? "";
  headers.set("signature", signature.replace(/signature="(.)/, (_, first: string) => `signature="${first === "A" ? "B" : "A"}`));
  return new Request(request.url, { headers });
}
