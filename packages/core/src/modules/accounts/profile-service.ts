import type { CredentialSourceView } from "../../mastodon/serializers/account.js";
import { KithError } from "../../domain/errors.js";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import { type AccountUpdate, toBool } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import type { GroupAccounts } from "./group-accounts.js";
import {
  clearProfileImage,
  findAccountById,
  findAccountIdByAcctKey,
  findCredentialSourceRow,
  updateProfileRows,
} from "./accounts-store.js";
import { countIncomingFollowRequests } from "../relationships/relationships-store.js";
import { mentionTargets } from "../statuses/mention-accounts.js";
import { formatText, mentionHandles } from "../statuses/text-formatter.js";
import { type ProfileField, parseProfileFields } from "./profile-fields.js";

/** Stores an image and returns its media id (the media service's `ingestFile`). */
export interface ProfileImageStore {
  ingestFile(input: { accountId: string; file: File; uploadType: "IMAGE"; tags: readonly string[] }): Promise<{ id: string }>;
}

/** What `update_credentials` may change; absent keys stay as they are. */
export interface ProfileUpdate {
  readonly displayName?: string;
  readonly note?: string;
  readonly fields?: readonly { readonly name: string; readonly value: string }[];
  readonly locked?: boolean;
  readonly bot?: boolean;
  readonly discoverable?: boolean;
  readonly hideCollections?: boolean;
  readonly indexable?: boolean;
  readonly privacy?: "public" | "unlisted" | "private";
  readonly sensitive?: boolean;
  readonly language?: string | null;
  readonly avatar?: File;
  readonly header?: File;
}

/** Mastodon's limits on a profile field's name and value. */
const MAX_FIELD_NAME = 255;
const MAX_FIELD_VALUE = 255;

/** Reading and editing one's own profile. */
export class ProfileService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly events: DomainEvents,
    private readonly images: ProfileImageStore,
    private readonly groupAccounts: Pick<GroupAccounts, "hidden">,
  ) {}

  /**
   * Changes the caller's profile. The note and field values are kept as
   * written (the `source` clients edit) and rendered to HTML with links,
   * hashtags and mentions of known accounts (what everyone is shown).
   */
  async update(accountId: string, update: ProfileUpdate): Promise<void> {
    const limits = this.deps.config.limits.accounts;
    const invalid = (message: string): never => {
      throw new KithError("profile.invalid", { message });
    };
    if (update.displayName !== undefined && [...update.displayName].length > limits.maxDisplayNameLength) {
      invalid(`The display name has at most ${limits.maxDisplayNameLength} characters`);
    }
    if (update.note !== undefined && [...update.note].length > limits.maxNoteLength)
      invalid(`The note has at most ${limits.maxNoteLength} characters`);
    const fields = update.fields?.filter((field) => field.name.trim() !== "" || field.value.trim() !== "");
    if (fields && fields.length > limits.maxProfileFields) invalid(`A profile has at most ${limits.maxProfileFields} fields`);
    for (const field of fields ?? []) {
      if ([...field.name].length > MAX_FIELD_NAME || [...field.value].length > MAX_FIELD_VALUE) {
        invalid(`A field's name and value have at most ${MAX_FIELD_NAME} characters each`);
      }
    }
    if (update.language && !/^[a-z]{2,3}$/.test(update.language)) invalid("The language is not an ISO 639 code");
    const row = await findAccountById(this.deps.storage.db, accountId);
    if (!row) throw new KithError("account.not_found");

    const origin = this.deps.config.origin;
    const handles = [update.note ?? "", ...(fields ?? []).map((field) => field.value)].flatMap(mentionHandles);
    const mentionable = await mentionTargets(this.deps.storage.db, new URL(origin).host.toLowerCase(), handles, new Map(), (ids) =>
      // A profile is read by anyone: a group's account that a guest may not see stays plain text.
      this.groupAccounts.hidden(null, ids),
    );
    const render = (text: string) => formatText(text, origin, mentionable).html;
    const avatar = update.avatar
      ? await this.images.ingestFile({ accountId, file: update.avatar, uploadType: "IMAGE", tags: ["Avatar"] })
      : null;
    const header = update.header
      ? await this.images.ingestFile({ accountId, file: update.header, uploadType: "IMAGE", tags: ["Header"] })
      : null;

    const now = this.deps.clock.now().toISOString();
    const changes: AccountUpdate = {
      updated_at: now,
      ...(update.displayName !== undefined && { display_name: update.displayName }),
      ...(update.note !== undefined && { note: update.note === "" ? "" : render(update.note), note_source: update.note }),
      ...(fields !== undefined && {
        fields: JSON.stringify(
          fields.map(
            (field): ProfileField => ({ name: field.name, value: inline(render(field.value)), source: field.value, verified_at: null }),
          ),
        ),
      }),
      ...(update.locked !== undefined && { locked: update.locked }),
      ...(update.bot !== undefined && row.actor_type !== "Group" && { actor_type: update.bot ? "Service" : "Person" }),
      ...(update.discoverable !== undefined && { discoverable: update.discoverable }),
      ...(update.hideCollections !== undefined && { hide_collections: writeFlag(update.hideCollections) }),
      ...(update.indexable !== undefined && { indexable: update.indexable }),
      ...(avatar && { avatar_media_id: avatar.id }),
      ...(header && { header_media_id: header.id }),
    };
    const userChanges = {
      ...(update.privacy !== undefined && { default_visibility: update.privacy }),
      ...(update.sensitive !== undefined && { default_sensitive: writeFlag(update.sensitive) }),
      ...(update.language !== undefined && { default_language: update.language || null }),
    };
    await this.deps.storage.transaction((trx) => updateProfileRows(trx, accountId, changes, userChanges));
    await this.events.emit({ type: "account.updated", accountId });
  }

  /**
   * Takes the caller's avatar or header away (Mastodon's `DELETE /api/v1/profile/avatar` and `/header`): the account
   * shows the default image again, and other servers hear of it with an Update of the actor, as after an edit.
   * Taking one that is not there is no error.
   */
  async removeImage(accountId: string, image: "avatar" | "header"): Promise<void> {
    if (await clearProfileImage(this.deps.storage.db, accountId, image, this.deps.clock.now().toISOString()))
      await this.events.emit({ type: "account.updated", accountId });
  }

  /** The id of the account with this acct key (`user` or `user@domain`, lower-cased), if known here. */
  async idByAcctKey(key: string): Promise<string | null> {
    return findAccountIdByAcctKey(this.deps.storage.db, key);
  }

  /** What only the owner sees: the sources of the note and fields, posting defaults, pending follow requests. */
  async credentialSource(accountId: string): Promise<CredentialSourceView> {
    const db = this.deps.storage.db;
    const [row, followRequestsCount] = await Promise.all([
      findCredentialSourceRow(db, accountId),
      countIncomingFollowRequests(db, accountId),
    ]);
    if (!row) throw new KithError("account.not_found");
    return {
      privacy: row.default_visibility,
      sensitive: toBool(row.default_sensitive as unknown as boolean | number),
      language: row.default_language,
      note: row.note_source ?? row.note,
      fields: parseProfileFields(row.fields).map((field) => ({
        name: field.name,
        value: field.source ?? field.value,
        verified_at: field.verified_at,
      })),
      followRequestsCount,
    };
  }
}

/** A field value is one line: the paragraphs the formatter wraps text in become line breaks. */
function inline(html: string): string {
  return html
    .replace(/^<p>/, "")
    .replace(/<\/p>$/, "")
    .replace(/<\/p><p>/g, "<br />");
}
