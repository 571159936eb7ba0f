import { createHash } from "node:crypto";
import { KithError } from "../../domain/errors.js";
import type { Caller } from "../../domain/caller.js";
import type { PublicationLevel } from "../../domain/instance-settings.js";
import { LANGUAGE_CODES, languageName } from "../../domain/languages.js";
import { paragraphsHtml } from "../../platform/http/html.js";
import type { ServiceDeps } from "../service-deps.js";
import type { SettingsService } from "../settings/settings-service.js";
import { publishedDomainBlocks } from "./instance-domain-blocks-store.js";

export interface Language {
  readonly code: string;
  readonly name: string;
}

export interface ExtendedDescription {
  /** When an administrator last set it; null while it was never set. */
  readonly updatedAt: string | null;
  readonly html: string;
}

export interface PublishedDomainBlock {
  readonly domain: string;
  /** SHA-256 of the domain, hex: how a reader checks a domain against an obfuscated entry. */
  readonly digest: string;
  readonly severity: "silence" | "suspend";
  /** The block's public comment, when the rationale is shown to this reader. */
  readonly comment?: string;
}

/** The name of the embedded AI stand-in (`DeterministicAiProvider`): no translation service stands behind it. */
const STAND_IN_AI = "deterministic";

/**
 * What the server publishes about itself beyond the instance document (Mastodon's `/api/v1/instance/*`): the
 * languages it knows, those it translates between, the longer about text, the rules, and (as an administrator
 * chooses) its domain blocks.
 */
export class InstancePublications {
  #translationLanguages: Record<string, string[]> | undefined;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "ai">,
    private readonly settings: SettingsService,
    /** Whether statuses can be translated here at all (the translations module present). */
    private readonly translation: { readonly enabled: boolean },
  ) {}

  /**
   * Whether clients are offered translation (the instance document's `translation.enabled` and the translation
   * languages): statuses can be translated, and a translation service stands behind the AI port. The embedded
   * stand-in still answers the translate route (tests and embedders use it), but what it returns is no translation,
   * so no client is told to show a button for it.
   */
  get translationOffered(): boolean {
    return this.translation.enabled && this.deps.ai.name !== STAND_IN_AI;
  }

  languages(): Language[] {
    return LANGUAGE_CODES.map((code) => ({ code, name: languageName(code) }));
  }

  /**
   * Each source language (`und`: detected) with the languages it translates into. The AI port translates between
   * any two, once translation is offered; until then nothing is, as Mastodon offers nothing without a service.
   */
  translationLanguages(): Record<string, string[]> {
    if (!this.translationOffered) return {};
    if (this.#translationLanguages === undefined) {
      const map: Record<string, string[]> = { und: [...LANGUAGE_CODES] };
      for (const source of LANGUAGE_CODES) map[source] = LANGUAGE_CODES.filter((target) => target !== source);
      this.#translationLanguages = map;
    }
    return this.#translationLanguages;
  }

  async extendedDescription(): Promise<ExtendedDescription> {
    const [text, updatedAt] = await Promise.all([this.settings.get("extendedDescription"), this.settings.updatedAt("extendedDescription")]);
    return { updatedAt: text === "" ? null : updatedAt, html: paragraphsHtml(text) };
  }

  async rules(): Promise<{ id: string; text: string; hint: string }[]> {
    return (await this.settings.get("rules")).map((rule) => ({ id: rule.id, text: rule.text, hint: rule.hint }));
  }

  /**
   * The domains this server limits or suspends, for those the `showDomainBlocks` setting lets read them; for
   * anyone else there is no such list (404), as in Mastodon. Obfuscated blocks show their domain partly starred.
   */
  async domainBlocks(caller: Caller): Promise<PublishedDomainBlock[]> {
    const settings = await this.settings.all();
    if (!reaches(settings.showDomainBlocks, caller)) throw new KithError("request.not_found");
    const withComment = reaches(settings.showDomainBlocksRationale, caller);
    return (await publishedDomainBlocks(this.deps.storage.db)).map((block) => ({
      domain: block.obfuscate ? obfuscated(block.domain) : block.domain,
      digest: createHash("sha256").update(block.domain).digest("hex"),
      severity: block.severity === "SUSPEND" ? "suspend" : "silence",
      ...(withComment && block.publicComment && { comment: block.publicComment }),
    }));
  }
}

function reaches(level: PublicationLevel, caller: Caller): boolean {
  return level === "all" || (level === "users" && caller.kind === "user");
}

/** The domain with its middle starred, dots kept: enough to recognise a domain one knows, not to learn one. */
export function obfuscated(domain: string): string {
  const shown = Math.floor(domain.length / 4);
  return [...domain].map((character, i) => (character === "." || i <= shown || i >= domain.length - shown ? character : "*")).join("");
}
