import type { InstanceSettings } from "../../domain/instance-settings.js";

export type { FieldProblem } from "./form-fields.js";
import { FORM_FIELD } from "./form-token.js";
import { type FieldProblem, labelledField, problemsOf } from "./form-fields.js";
import { type SafeHtml, html } from "./html-template.js";
import { type PageMeta, type SiteInfo, pageDocument } from "./page-layout.js";

/** What a person typed, kept when the form comes back with problems (never the password). */
export interface SignUpValues {
  readonly username: string;
  readonly email: string;
  readonly reason: string;
}

const LABELS: Readonly<Record<string, string>> = {
  username: "Username",
  email: "Email address",
  password: "Password",
  password_confirmation: "Password, again",
  agreement: "Agreement",
  reason: "Why do you want to join?",
};

function meta(site: SiteInfo, title: string): PageMeta {
  return {
    title: `${title} · ${site.name}`,
    description: `${title} on ${site.name}`,
    canonical: `${site.origin}/auth/sign_up`,
    ogType: "website",
    noindex: true,
  };
}

/** One labelled input of the form, its label from the form's labels. */
function field(
  name: string,
  input: { type: string; value?: string; autocomplete: string; required?: boolean; hint?: string },
  problems: readonly FieldProblem[],
): SafeHtml {
  return labelledField(name, LABELS[name] ?? name, input, problems);
}

export interface SignUpFormOptions {
  readonly settings: InstanceSettings;
  readonly csrfToken: string;
  readonly values?: SignUpValues;
  readonly problems?: readonly FieldProblem[];
}

/** The sign-up form: the server's rules to agree to, and a reason when a moderator approves new accounts. */
export function signUpFormView(site: SiteInfo, options: SignUpFormOptions): string {
  const { settings } = options;
  const problems = options.problems ?? [];
  const values = options.values ?? { username: "", email: "", reason: "" };
  const approval = settings.registrationsMode === "approval";
  const reasonProblems = problemsOf(problems, "reason");
  const agreementProblems = problemsOf(problems, "agreement");
  const body = html`<h1>Create an account on ${site.name}</h1>
${approval ? html`<p class="notice" id="approval-notice">A moderator reviews new accounts here: tell them why you want to join. You can sign in once your account is approved.</p>` : ""}
${problems.length ? html`<p class="error" role="alert">Some fields need another look.</p>` : ""}
<form method="post" action="/auth/sign_up" class="account-form">
<input type="hidden" name="${FORM_FIELD}" value="${options.csrfToken}">
${field("username", { type: "text", value: values.username, autocomplete: "username", required: true, hint: "Letters, digits and underscores, up to 30 characters." }, problems)}
${field("email", { type: "email", value: values.email, autocomplete: "email", required: true }, problems)}
${field("password", { type: "password", autocomplete: "new-password", required: true, hint: "At least 8 characters." }, problems)}
${field("password_confirmation", { type: "password", autocomplete: "new-password", required: true }, problems)}
${
  approval
    ? html`<div class="field"><label for="reason">${LABELS.reason}</label>
<textarea id="reason" name="reason" rows="4" maxlength="1000" required${reasonProblems.length ? html` aria-invalid="true" aria-describedby="reason-error"` : ""}>${values.reason}</textarea>
${reasonProblems.length ? html`<p class="error" id="reason-error">${reasonProblems.map((problem) => html`Reason ${problem.message}. `)}</p>` : ""}</div>`
    : ""
}
<fieldset><legend>The server's rules</legend>
${settings.rules.length ? html`<ol class="rules">${settings.rules.map((rule) => html`<li>${rule.text}${rule.hint ? html`<span class="hint">${rule.hint}</span>` : ""}</li>`)}</ol>` : html`<p>This server has published no rules.</p>`}
<label class="check"><input type="checkbox" id="agreement" name="agreement" value="1" required${agreementProblems.length ? html` aria-invalid="true" aria-describedby="agreement-error"` : ""}> I have read the rules and agree to them</label>
${agreementProblems.length ? html`<p class="error" id="agreement-error">You must agree to the rules.</p>` : ""}
</fieldset>
<button type="submit">Sign up</button>
</form>`;
  return pageDocument(site, meta(site, "Sign up"), body);
}

/** After a sign-up: what happens next, which depends on whether a moderator approves accounts. */
export function signedUpView(site: SiteInfo, username: string, email: string, approval: boolean): string {
  const body = html`<h1>Welcome, ${username}</h1>
<p role="status">We sent a link to <strong>${email}</strong>: follow it to confirm your address.</p>
${approval ? html`<p>A moderator will review your request; you can sign in once it is approved.</p>` : html`<p>Then sign in from any app that speaks the Mastodon API, with this server's address.</p>`}`;
  return pageDocument(site, meta(site, "Check your email"), body);
}

/** A refusal that is not about one field: sign-ups closed, an address blocked, too many attempts, an expired form. */
export function signUpRefusedView(site: SiteInfo, title: string, message: string): string {
  return pageDocument(
    site,
    meta(site, title),
    html`<h1>${title}</h1><p class="error" role="alert">${message}</p><p><a href="/about">About ${site.name}</a></p>`,
  );
}
