import { Document, Hashtag, Note, Question, Collection } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { parseJsonArray, tagUrl } from "../../mastodon/serializers/status.js";
import { findMediaOfStatuses } from "../media/media-attachments-store.js";
import { findPollOfStatus, listStatusTagNames } from "./federated-posts-store.js";
import type { Database, StatusRow } from "../../ports/storage-schema.js";
import type { MediaUrls } from "../federation/actors.js";
import { instantOf } from "../../platform/federation/instant.js";
import { flag, loadNoteContext, noteOf } from "./notes.js";

/** A post as it is sent: the Note of `noteOf` with its hashtags and attachments, or a Question when it has a poll. */
export async function postObjectOf(
  db: Kysely<Database>,
  origin: string,
  media: MediaUrls | null,
  status: StatusRow,
): Promise<Note | Question | null> {
  const note = noteOf(origin, status, await loadNoteContext(db, [status]));
  if (!note) return null;
  const tagNames = (await listStatusTagNames(db, [status.id])).get(status.id) ?? [];
  const hashtags = tagNames.map((name) => new Hashtag({ name: `#${name}`, href: new URL(tagUrl(origin, name.toLowerCase())) }));
  const rows = await findMediaOfStatuses(db, [status.id]);
  const urls = media ? await media.publicUrls(rows.map((row) => row.id)) : new Map<string, { url: string }>();
  const attachments = rows.flatMap((row) => {
    const found = urls.get(row.id);
    if (!found) return [];
    return [
      new Document({
        url: new URL(found.url),
        ...(row.content_type && { mediaType: row.content_type }),
        ...(row.description && { name: row.description }),
      }),
    ];
  });
  const tags = [];
  for await (const tag of note.getTags()) tags.push(tag);
  tags.push(...hashtags);
  const poll = await findPollOfStatus(db, status.id);
  if (!poll) return note.clone({ tags, attachments });
  const titles = parseJsonArray<string>(poll.options);
  const tallies = parseJsonArray<number>(poll.cached_tallies);
  const options = titles.map((title, index) => new Note({ name: title, replies: new Collection({ totalItems: tallies[index] ?? 0 }) }));
  return new Question({
    id: note.id,
    attribution: note.attributionId,
    content: note.content,
    summary: note.summary,
    sensitive: note.sensitive,
    published: note.published,
    updated: note.updated,
    url: note.url instanceof URL ? note.url : null,
    tos: note.toIds,
    ccs: note.ccIds,
    replyTarget: note.replyTargetId,
    tags,
    attachments,
    ...(flag(poll.multiple) ? { inclusiveOptions: options } : { exclusiveOptions: options }),
    ...(poll.expires_at && { endTime: instantOf(poll.expires_at) }),
    ...(poll.closed_at && { closed: instantOf(poll.closed_at) }),
    voters: poll.voters_count,
  });
}
