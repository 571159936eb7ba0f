import type { ProfileImageStore } from "../accounts/index.js";

/** A group's new avatar and header, as `PATCH /api/v1/groups/{groupId}` takes them (multipart, as `update_credentials`). */
export interface GroupImages {
  readonly avatar?: File;
  readonly header?: File;
}

/**
 * Processes a group's new images as a profile's are processed, before the
 * change's transaction (processing is slow, and a file that is no image is
 * refused there, 422, before anything changed). They are stored as the
 * uploads of the manager who sent them: a group has no quota of its own.
 */
export async function groupImagesMedia(
  media: ProfileImageStore,
  actorId: string,
  images: GroupImages,
): Promise<{ avatarMediaId?: string; headerMediaId?: string }> {
  const avatar = images.avatar
    ? await media.ingestFile({ accountId: actorId, file: images.avatar, uploadType: "IMAGE", tags: ["Avatar"] })
    : null;
  const header = images.header
    ? await media.ingestFile({ accountId: actorId, file: images.header, uploadType: "IMAGE", tags: ["Header"] })
    : null;
  return { ...(avatar && { avatarMediaId: avatar.id }), ...(header && { headerMediaId: header.id }) };
}
