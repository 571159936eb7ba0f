import { defineErrorCodes } from "../../domain/error-catalog.js";
import { defineIdKinds } from "../../domain/ids.js";

/** A participation (an account's RSVP to one event) is `ep_…`; events themselves are the core's `ev_…`. */
export const eventIds = defineIdKinds({ eventParticipant: "ep" });

/**
 * The refusals of calendar events. 403 for who may not (not the organizer,
 * not invited, no group permission), 409 for a state or kind that refuses
 * (RSVP on the wrong kind of event, on a cancelled or deleted one).
 */
export const eventErrors = defineErrorCodes({
  "event.not_found": { status: 404, message: "Event not found" },
  "event.not_organizer": { status: 403, message: "Only the event's organizer may do this" },
  "event.not_invited": { status: 403, message: "Only an invited user may answer this event's invitation" },
  "event.group_forbidden": { status: 403, message: "Creating an event in this group's calendar needs GroupSettings.Manage in the group" },
  "event.invite_only": { status: 409, message: "Invite-only events take no join, interest or leave; answer the invitation instead" },
  "event.not_invite_only": { status: 409, message: "Public events have no invitations; join or mark interest instead" },
  "event.cancelled": { status: 409, message: "The event is cancelled and takes no more responses" },
  "event.deleted": { status: 409, message: "The event is deleted" },
  "event.already_cancelled": { status: 409, message: "The event is cancelled already" },
  "event.not_participating": { status: 409, message: "You neither attend nor are interested in this event" },
  "event.privacy_locked": {
    status: 409,
    message: "The event has attendees or invitations: its privacy can no longer change",
  },
  "event.attendee_not_found": { status: 404, message: "This user is neither invited to nor attending the event" },
  "event.invitee_not_found": { status: 404, message: "No local user has this id" },
  "event.invalid_times": { status: 422, message: "The event must end after it starts" },
  "event.invalid_time_zone": { status: 422, message: "The time zone is not an IANA time zone" },
  "event.search_filter_required": {
    status: 422,
    message: "Local and FASP searches need a query, a date range, or a point and radius",
  },
  "event.fasp_not_configured": { status: 503, message: "No FASP discovery provider is configured on this server" },
  "event.translation_same_language": { status: 422, message: "The event is already in that language" },
  "event.calendar_not_found": { status: 404, message: "Calendar not found" },
});
