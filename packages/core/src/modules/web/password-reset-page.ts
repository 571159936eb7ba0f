import { type FieldProblem, labelledField } from "./form-fields.js";
import { FORM_FIELD } from "./form-token.js";
import { html } from "./html-template.js";
import { type PageMeta, type SiteInfo, pageDocument } from "./page-layout.js";

/**
 * The pages of a forgotten password: ask for a code by email address or
 * username, then set a new password with the code the mail brings. They
 * drive the API's recovery (`/api/v1/accounts/password/recover...`) through
 * the same service.
 */

function meta(site: SiteInfo, title: string): PageMeta {
  return {
    title: `${title} · ${site.name}`,
    description: `${title} on ${site.name}`,
    canonical: `${site.origin}/auth/password/new`,
    ogType: "website",
    noindex: true,
  };
}

/** Step 1: the account's email address or username. */
export function passwordRequestView(site: SiteInfo, csrfToken: string, problems: readonly FieldProblem[] = []): string {
  const body = html`<h1>Forgot your password?</h1>
<p>Give the email address or username of your account: we will email it a code to set a new password with.</p>
${problems.length ? html`<p class="error" role="alert">Some fields need another look.</p>` : ""}
<form method="post" action="/auth/password/new" class="account-form">
<input type="hidden" name="${FORM_FIELD}" value="${csrfToken}">
${labelledField("identifier", "Email address or username", { type: "text", autocomplete: "username", required: true }, problems)}
<button type="submit">Email me a code</button>
</form>`;
  return pageDocument(site, meta(site, "Forgot your password?"), body);
}

/** Step 2: the mailed code and the new password (the identifier carried along, as the service asks for it). */
export function passwordChangeView(
  site: SiteInfo,
  options: { csrfToken: string; identifier: string; problems?: readonly FieldProblem[] },
): string {
  const problems = options.problems ?? [];
  const body = html`<h1>Set a new password</h1>
<p role="status">If an account matches <strong>${options.identifier}</strong>, we emailed its address a code. It works for a short while.</p>
${problems.length ? html`<p class="error" role="alert">Some fields need another look.</p>` : ""}
<form method="post" action="/auth/password/edit" class="account-form">
<input type="hidden" name="${FORM_FIELD}" value="${options.csrfToken}">
<input type="hidden" name="identifier" value="${options.identifier}">
${labelledField("code", "Code from the email", { type: "text", autocomplete: "one-time-code", required: true }, problems)}
${labelledField("password", "New password", { type: "password", autocomplete: "new-password", required: true, hint: "At least 8 characters." }, problems)}
${labelledField("password_confirmation", "New password, again", { type: "password", autocomplete: "new-password", required: true }, problems)}
<button type="submit">Set the password</button>
</form>
<p><a href="/auth/password/new">Send another code</a></p>`;
  return pageDocument(site, meta(site, "Set a new password"), body);
}

/** Done: every session ended, as the service does; the person signs in again from their app. */
export function passwordChangedView(site: SiteInfo): string {
  const body = html`<h1>Your password is changed</h1>
<p role="status">You are signed out everywhere. Sign in again from your app with the new password.</p>
<p><a href="/about">About ${site.name}</a></p>`;
  return pageDocument(site, meta(site, "Password changed"), body);
}
