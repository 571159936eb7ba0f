/**
 * The media types of an Accept header, most wanted first (by `q`, then as
 * written), parameters dropped and those refused (`q=0`) left out.
 */
export function acceptedTypes(accept: string): string[] {
  return accept
    .split(",")
    .map((entry, index) => {
      const [type = "", ...parameters] = entry.split(";").map((part) => part.trim().toLowerCase());
      const q = parameters.find((parameter) => parameter.startsWith("q="));
      return { type, index, q: q === undefined ? 1 : Number(q.slice(2)) };
    })
    .filter((entry) => entry.type !== "" && Number.isFinite(entry.q) && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.type);
}
