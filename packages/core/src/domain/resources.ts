import type { AccessType } from "./permissions.js";

/**
 * The resources that roles grant access to, with what each covers.
 * `groupScoped`: a role of a group may hold it, because it has a meaning
 * inside one group (the group's own administration, and the data a group
 * owns); the others are the server's alone and only global roles hold them.
 */
export const RESOURCES = [
  { name: "Users", description: "Accounts of the server: create, delete, roles, passwords, states", groupScoped: false },
  { name: "Roles", description: "Roles, their permissions and their assignment", groupScoped: false },
  { name: "Reports", description: "Moderation reports in server scope", groupScoped: false },
  { name: "GroupReports", description: "Moderation reports in a group's scope", groupScoped: true },
  { name: "Uploads", description: "Uploads, processing jobs and storage of every user", groupScoped: false },
  { name: "Jobs", description: "Background jobs, queues and workers", groupScoped: false },
  { name: "Federation", description: "Domain blocks, allowlists, relays, FASP providers, federation monitoring", groupScoped: false },
  { name: "AdminSettings", description: "Server settings, the email-domain allowlist, link previews, embeddings", groupScoped: false },
  { name: "CustomEmojis", description: "The server's custom emojis, and those other servers sent", groupScoped: false },
  { name: "Signups", description: "Signup requests awaiting approval", groupScoped: false },
  {
    name: "Data",
    description: "Platform data entries: the platform's with a global grant, a group's with a grant in the group",
    groupScoped: true,
  },
  { name: "AIProviders", description: "AI providers and keys in global scope", groupScoped: false },
  { name: "GroupAIProviders", description: "AI providers and keys in a group's scope", groupScoped: true },
  { name: "GroupApps", description: "Applications installed in a group", groupScoped: true },
  { name: "GroupSettings", description: "A group's settings", groupScoped: true },
  { name: "GroupMembers", description: "A group's members, invitations, join requests and bans", groupScoped: true },
  { name: "GroupRoles", description: "A group's roles and their assignment to its members", groupScoped: true },
  { name: "GroupOwnership", description: "A group itself: deleting it, and the Owner role that only its owners give", groupScoped: true },
] as const;

export type ResourceName = (typeof RESOURCES)[number]["name"];

const ALL: readonly AccessType[] = ["Read", "Add", "Modify", "Delete"];
const READ: readonly AccessType[] = ["Read"];

export interface BuiltInRole {
  readonly name: string;
  readonly description: string;
  readonly permissions: readonly { readonly resource: ResourceName; readonly access: readonly AccessType[] }[];
}

/** The roles every server starts with, seeded by the first migration. */
export const BUILT_IN_ROLES: readonly BuiltInRole[] = [
  {
    name: "Owner",
    description: "Everything, including roles and server settings",
    permissions: RESOURCES.map((resource) => ({ resource: resource.name, access: ALL })),
  },
  {
    name: "Admin",
    description: "Administers users, moderation, federation and settings",
    permissions: RESOURCES.map((resource) => ({ resource: resource.name, access: resource.name === "Roles" ? READ : ALL })),
  },
  {
    name: "Moderator",
    description: "Handles reports and signups; reads federation state",
    permissions: [
      { resource: "Reports", access: ALL },
      { resource: "GroupReports", access: ALL },
      { resource: "Signups", access: ALL },
      { resource: "Users", access: READ },
      { resource: "Federation", access: READ },
      { resource: "Uploads", access: READ },
    ],
  },
  { name: "User", description: "A member of the server with no administrative rights", permissions: [] },
];

/** The resources a group-scoped role may hold. */
const GROUP_RESOURCES = RESOURCES.filter((resource) => resource.groupScoped);

/**
 * The roles every group starts with, in the group's scope, made with the
 * group. Owner holds every group resource, GroupOwnership among them, which
 * nobody else holds: no other role can make an owner or delete the group.
 * Admin runs the group, its roles included; Moderator its members and
 * reports; Member holds nothing, what a member may do is membership's.
 */
export const GROUP_BUILT_IN_ROLES: readonly BuiltInRole[] = [
  {
    name: "Owner",
    description: "Everything in the group, including deleting it and naming other owners",
    permissions: GROUP_RESOURCES.map((resource) => ({ resource: resource.name, access: ALL })),
  },
  {
    name: "Admin",
    description: "Runs the group: its settings, members, roles, applications, reports and data",
    permissions: GROUP_RESOURCES.filter((resource) => resource.name !== "GroupOwnership").map((resource) => ({
      resource: resource.name,
      access: ALL,
    })),
  },
  {
    name: "Moderator",
    description: "Handles the group's members, join requests, invitations, bans and reports",
    permissions: [
      { resource: "GroupMembers", access: ALL },
      { resource: "GroupReports", access: ALL },
      { resource: "GroupSettings", access: READ },
      { resource: "GroupRoles", access: READ },
    ],
  },
  { name: "Member", description: "A member of the group", permissions: [] },
];
