import { z } from "zod";
import { isKithError } from "../../domain/errors.js";
import { publicAccess } from "../../platform/http/access.js";
import { Reply } from "../../platform/http/reply.js";
import { moduleRoute } from "../module.js";
import { FORM_FIELD, formCookie, formCookieToken, formTokenMatches } from "./form-token.js";
import { PAGE_HEADERS, type SiteInfo } from "./page-layout.js";
import { passwordChangeView, passwordChangedView, passwordRequestView } from "./password-reset-page.js";
import { type FieldProblem, type SignUpValues, signUpFormView, signUpRefusedView, signedUpView } from "./sign-up-page.js";
import type { WebServices } from "./web-services.js";

const route = moduleRoute<WebServices>();

const HTML = "text/html; charset=utf-8";
/** Forms are not cached, nor their answers, which hold what a person typed. */
const FORM_HEADERS = { ...PAGE_HEADERS, "cache-control": "no-store" };

/** Long enough for the service to say what is wrong with any value a person types; it decides the real limits. */
const Text = z.string().max(10_000).optional();
const SignUpForm = z.object({
  [FORM_FIELD]: Text,
  username: Text,
  email: Text,
  password: Text,
  password_confirmation: Text,
  agreement: Text,
  reason: Text,
  locale: Text,
});

const PasswordRequestForm = z.object({ [FORM_FIELD]: Text, identifier: Text });
const PasswordChangeForm = z.object({
  [FORM_FIELD]: Text,
  identifier: Text,
  code: Text,
  password: Text,
  password_confirmation: Text,
});

/** A form that did not come from this site, or whose cookie is gone. */
function expiredForm(site: SiteInfo): Reply {
  return page(
    signUpRefusedView(
      site,
      "The form has expired",
      "This form did not come from this site or has expired. Go back, reload the page and try again.",
    ),
    403,
  );
}

function page(body: string, status = 200, headers: Record<string, string> = {}): Reply {
  return Reply.text(body, HTML, { status, headers: { ...FORM_HEADERS, ...headers } });
}

/** The refusals of the registration service that concern no single field, as a page says them. */
const REFUSALS: Readonly<Record<string, string>> = {
  "registration.closed": "Sign-ups are closed",
  "registration.address_blocked": "Sign-ups are not allowed from here",
  "request.rate_limited": "Too many attempts",
};

/**
 * The account pages a person needs outside an app. Sign-up is the API's
 * registration (`POST /api/v1/accounts`) through the same service, as a form
 * with CSRF protection; the confirmation link it mails is the registration
 * module's `/auth/confirmation` page.
 */
export const accountRoutes = [
  route({
    method: "GET",
    path: "/auth/sign_up",
    summary: "The sign-up form: the server's rules to agree to, and a reason when accounts are approved",
    tags: ["web"],
    access: publicAccess,
    produces: HTML,
    response: z.string(),
    handler: async ({ module, services, config, request, url }) => {
      const site: SiteInfo = { name: await module.pages.siteName(), origin: config.origin };
      const settings = await services.settings.all();
      if (settings.registrationsMode === "closed") {
        return page(
          signUpRefusedView(site, REFUSALS["registration.closed"] ?? "", "This server does not take new accounts at the moment."),
          403,
        );
      }
      // Several tabs may be open on the form: keep the browser's token while it has one.
      const token = formCookieToken(request) ?? services.oauth.newFormToken();
      return page(signUpFormView(site, { settings, csrfToken: token }), 200, {
        "set-cookie": formCookie(token, url.protocol === "https:"),
      });
    },
  }),
  route({
    method: "POST",
    path: "/auth/sign_up",
    summary: "Signs up from the form (with its CSRF token); answers the next steps, or the form with what to fix",
    description:
      "The same registration as `POST /api/v1/accounts`: the mode, rules, limits and blocks apply alike. No token is handed to the browser; the person signs in from an app once the address is confirmed (and the account approved).",
    tags: ["web"],
    access: publicAccess,
    body: SignUpForm,
    produces: HTML,
    response: z.string(),
    handler: async ({ body, module, services, config, request, clientIp }) => {
      const site: SiteInfo = { name: await module.pages.siteName(), origin: config.origin };
      if (!formTokenMatches(request, body[FORM_FIELD])) return expiredForm(site);
      const settings = await services.settings.all();
      const values: SignUpValues = { username: body.username ?? "", email: body.email ?? "", reason: body.reason ?? "" };
      const again = (problems: readonly FieldProblem[], status: number) =>
        page(signUpFormView(site, { settings, csrfToken: body[FORM_FIELD] ?? "", values, problems }), status);
      if ((body.password ?? "") !== (body.password_confirmation ?? "")) {
        return again([{ field: "password_confirmation", message: "does not match the password" }], 422);
      }
      try {
        const registration = await services.registration.register(
          {
            username: body.username,
            email: body.email,
            password: body.password,
            agreement: body.agreement !== undefined && body.agreement !== "" && body.agreement !== "0",
            locale: body.locale,
            reason: body.reason,
          },
          // No application and no scopes: the session the service opens can do nothing, and the browser is not given it.
          { appId: null, scopes: [], ip: clientIp, userAgent: request.headers.get("user-agent") },
        );
        return page(signedUpView(site, registration.account.username, body.email ?? "", registration.mode === "approval"));
      } catch (error) {
        if (!isKithError(error)) throw error;
        if (error.code === "registration.invalid") {
          return again(
            (error.details ?? []).map((detail) => ({ field: detail.field ?? "", message: detail.message })),
            422,
          );
        }
        const title = REFUSALS[error.code];
        if (title) return page(signUpRefusedView(site, title, error.message), error.code === "request.rate_limited" ? 429 : 403);
        throw error;
      }
    },
  }),
  route({
    method: "GET",
    path: "/auth/password/new",
    summary: "The forgotten-password form: the account's email address or username, to email a code to",
    tags: ["web"],
    access: publicAccess,
    produces: HTML,
    response: z.string(),
    handler: async ({ module, services, config, request, url }) => {
      const site: SiteInfo = { name: await module.pages.siteName(), origin: config.origin };
      const token = formCookieToken(request) ?? services.oauth.newFormToken();
      return page(passwordRequestView(site, token), 200, { "set-cookie": formCookie(token, url.protocol === "https:") });
    },
  }),
  route({
    method: "POST",
    path: "/auth/password/new",
    summary: "Emails a recovery code to the account named (answering alike for unknown ones), then asks for the code and a new password",
    description: "Step 1 of `POST /api/v1/accounts/password/recover`, through the same service and its rate limits.",
    tags: ["web"],
    access: publicAccess,
    body: PasswordRequestForm,
    produces: HTML,
    response: z.string(),
    handler: async ({ body, module, services, config, request, clientIp }) => {
      const site: SiteInfo = { name: await module.pages.siteName(), origin: config.origin };
      if (!formTokenMatches(request, body[FORM_FIELD])) return expiredForm(site);
      const identifier = (body.identifier ?? "").trim();
      if (identifier === "") {
        return page(passwordRequestView(site, body[FORM_FIELD] ?? "", [{ field: "identifier", message: "is required" }]), 422);
      }
      try {
        await services.password.recover(identifier, clientIp);
      } catch (error) {
        if (isKithError(error) && error.code === "request.rate_limited")
          return page(signUpRefusedView(site, "Too many attempts", error.message), 429);
        throw error;
      }
      return page(passwordChangeView(site, { csrfToken: body[FORM_FIELD] ?? "", identifier }));
    },
  }),
  route({
    method: "POST",
    path: "/auth/password/edit",
    summary: "Sets a new password with the emailed code; every session ends, as with the API's recovery",
    description: "Steps 2 and 3 of the API's recovery (`recover/check-code`, `recover/change`), through the same service.",
    tags: ["web"],
    access: publicAccess,
    body: PasswordChangeForm,
    produces: HTML,
    response: z.string(),
    handler: async ({ body, module, services, config, request, clientIp }) => {
      const site: SiteInfo = { name: await module.pages.siteName(), origin: config.origin };
      if (!formTokenMatches(request, body[FORM_FIELD])) return expiredForm(site);
      const identifier = (body.identifier ?? "").trim();
      const code = (body.code ?? "").trim();
      const again = (problems: readonly FieldProblem[]) =>
        page(passwordChangeView(site, { csrfToken: body[FORM_FIELD] ?? "", identifier, problems }), 422);
      if (code === "") return again([{ field: "code", message: "is required" }]);
      if ((body.password ?? "") !== (body.password_confirmation ?? "")) {
        return again([{ field: "password_confirmation", message: "does not match the password" }]);
      }
      const complete = () => services.password.completeRecovery(identifier, code, body.password ?? "", clientIp);
      try {
        try {
          // A code checked before (the form sent back for a password the service refused) is not checked twice.
          await complete();
        } catch (error) {
          if (!isKithError(error) || error.code !== "credentials.recovery_not_checked") throw error;
          await services.password.checkRecoveryCode(identifier, code);
          await complete();
        }
      } catch (error) {
        if (!isKithError(error)) throw error;
        if (error.code === "credentials.code_invalid" || error.code === "credentials.code_attempts_exceeded") {
          return again([{ field: "code", message: error.message.replace(/^The code /, "") }]);
        }
        if (error.code === "credentials.invalid_password" || error.code === "request.validation_failed") {
          const details = (error.details ?? []).map((detail) => detail.message);
          return again([{ field: "password", message: details.length ? details.join("; ") : "is not acceptable" }]);
        }
        if (error.code === "request.rate_limited") return page(signUpRefusedView(site, "Too many attempts", error.message), 429);
        throw error;
      }
      return page(passwordChangedView(site));
    },
  }),
];
