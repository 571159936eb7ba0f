import { type SafeHtml, html } from "./html-template.js";

/** A problem with one field, in the words the service gives. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

export function problemsOf(problems: readonly FieldProblem[], field: string): readonly FieldProblem[] {
  return problems.filter((problem) => problem.field === field);
}

/** One labelled input, with its hint and problems tied to it for screen readers. */
export function labelledField(
  name: string,
  label: string,
  input: { type: string; value?: string; autocomplete: string; required?: boolean; hint?: string },
  problems: readonly FieldProblem[],
): SafeHtml {
  const own = problemsOf(problems, name);
  const described = [own.length ? `${name}-error` : "", input.hint ? `${name}-hint` : ""].filter(Boolean).join(" ");
  return html`<div class="field"><label for="${name}">${label}</label>
${input.hint ? html`<span class="hint" id="${name}-hint">${input.hint}</span>` : ""}
<input id="${name}" name="${name}" type="${input.type}" autocomplete="${input.autocomplete}"${input.value === undefined ? "" : html` value="${input.value}"`}${input.required ? html` required` : ""}${own.length ? html` aria-invalid="true"` : ""}${described ? html` aria-describedby="${described}"` : ""}>
${own.length ? html`<p class="error" id="${name}-error">${own.map((problem) => html`${label} ${problem.message}. `)}</p>` : ""}</div>`;
}
