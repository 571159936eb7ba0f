import { escapeHtml } from "../../platform/http/html.js";

type JsonSchema = Record<string, unknown>;

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#2b2d42;color:#fff;padding:1rem 2rem}header a{color:#c9d6ff}
main{max-width:70rem;margin:0 auto;padding:1rem 2rem}
h2{border-bottom:1px solid #ddd;padding-top:1rem}
details{background:#fff;border:1px solid #e2e2e2;border-radius:6px;margin:.4rem 0;padding:.4rem .8rem}
summary{cursor:pointer}code{font:13px ui-monospace,monospace}
.m{display:inline-block;min-width:4.5rem;font-weight:700;font-family:ui-monospace,monospace}
.GET{color:#1a7f37}.POST{color:#0969da}.PUT{color:#9a6700}.PATCH{color:#8250df}.DELETE{color:#cf222e}
.access{color:#555;font-size:13px}pre{background:#f3f3f3;padding:.6rem;overflow:auto;font-size:12px}
`;

/** A readable, self-contained page over the OpenAPI document: no scripts, no outside assets. */
export function renderReferencePage(document: JsonSchema): string {
  const paths = (document.paths ?? {}) as Record<string, Record<string, JsonSchema>>;
  const byTag = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = ((operation.tags as string[] | undefined) ?? ["other"])[0] ?? "other";
      const verb = method.toUpperCase();
      const request = operation.requestBody
        ? `<h4>Request body</h4><pre>${escapeHtml(JSON.stringify(operation.requestBody, null, 2))}</pre>`
        : "";
      const parameters = (operation.parameters as unknown[] | undefined)?.length
        ? `<h4>Parameters</h4><pre>${escapeHtml(JSON.stringify(operation.parameters, null, 2))}</pre>`
        : "";
      const item = `<details><summary><span class="m ${verb}">${verb}</span> <code>${escapeHtml(path)}</code> — ${escapeHtml(
        String(operation.summary ?? ""),
      )}</summary><p class="access">Access: ${escapeHtml(String(operation["x-kith-access"] ?? ""))}</p>${parameters}${request}<h4>Responses</h4><pre>${escapeHtml(
        JSON.stringify(operation.responses, null, 2),
      )}</pre></details>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), item]);
    }
  }
  const sections = [...byTag.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tag, items]) => `<section><h2>${escapeHtml(tag)}</h2>${items.join("")}</section>`)
    .join("");
  const info = (document.info ?? {}) as { title?: string; version?: string };
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(
    info.title ?? "API",
  )} reference</title><style>${STYLE}</style></head><body><header><h1>${escapeHtml(info.title ?? "API")} ${escapeHtml(
    info.version ?? "",
  )}</h1><p>The machine-readable document: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a></p></header><main>${sections}</main></body></html>`;
}
