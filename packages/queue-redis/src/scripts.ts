/**
 * Lua scripts for what BullMQ has no command for: reading a job's Kith status
 * (which splits BullMQ's `delayed` into schedule, retries and held ordered
 * jobs, and `failed` into failed and dead letters), paging the id index, and
 * the per-ordering-key FIFO lists. Each runs atomically on the server, so a
 * job cannot change state halfway through being described.
 *
 * Key names are built inside the scripts from the prefixes passed as
 * arguments, as BullMQ's own scripts do for job keys; this is why the
 * adapter does not support Redis Cluster.
 */

/** Shared helpers; every script starts with them. */
const PRELUDE = `
local rcall = redis.call

-- The status of a job in BullMQ's delayed set: a retry after a failed
-- attempt, a job held back by its ordering key (submitted, or schedule when
-- its own delay has not passed), or a delayed job.
local function delayedStatus(base, id, now, held)
  local f = rcall("HMGET", base .. id, "atm", "delay", "data")
  if (tonumber(f[1]) or 0) > 0 then return "retries" end
  if f[2] == held then
    local runAt = 0
    local ok, data = pcall(cjson.decode, f[3] or "")
    if ok and type(data) == "table" then runAt = tonumber(data["t"]) or 0 end
    if runAt > now then return "schedule" end
    return "submitted"
  end
  return "schedule"
end

local function jobStatus(base, dlqKey, id, now, held)
  if rcall("ZSCORE", base .. "completed", id) then return "finished" end
  if rcall("ZSCORE", base .. "failed", id) then
    if rcall("SISMEMBER", dlqKey, id) == 1 then return "dlq" end
    return "failed"
  end
  if rcall("ZSCORE", base .. "delayed", id) then return delayedStatus(base, id, now, held) end
  if rcall("ZSCORE", base .. "prioritized", id) then return "submitted" end
  -- An active job holds a lock; a stalled one (lock expired) is still in the active list.
  if rcall("EXISTS", base .. id .. ":lock") == 1 then return "active" end
  if rcall("LPOS", base .. "active", id) then return "active" end
  return "submitted"
end

-- One job as a flat array of strings ("" for missing fields), read by records.ts.
local function describeJob(bullPrefix, metaPrefix, queue, id, status)
  local base = bullPrefix .. ":" .. queue .. ":"
  local f = rcall("HMGET", base .. id, "data", "opts", "timestamp", "delay", "atm", "processedOn", "finishedOn", "failedReason")
  local out = { queue, id, status }
  for i = 1, 8 do out[#out + 1] = f[i] or "" end
  out[#out + 1] = rcall("ZSCORE", base .. "delayed", id) or ""
  return out
end
`;

/**
 * ARGV: bull prefix, meta prefix, now (ms), held delay, job id.
 * Returns the job's description, or an empty array when there is none. The
 * queue is found through the id index, else (jobs made by a job scheduler,
 * which are not indexed) by looking in every known queue.
 */
export const GET_JOB = `${PRELUDE}
local bullPrefix, metaPrefix, now, held, id = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
local queue
local found = rcall("ZRANGEBYLEX", metaPrefix .. ":jobs", "[" .. id .. ":", "(" .. id .. ";", "LIMIT", 0, 1)
if #found > 0 then
  queue = string.sub(found[1], #id + 2)
else
  for _, candidate in ipairs(rcall("SMEMBERS", metaPrefix .. ":queues")) do
    if rcall("EXISTS", bullPrefix .. ":" .. candidate .. ":" .. id) == 1 then
      queue = candidate
      break
    end
  end
end
if not queue then return {} end
local base = bullPrefix .. ":" .. queue .. ":"
if rcall("EXISTS", base .. id) == 0 then return {} end
return describeJob(bullPrefix, metaPrefix, queue, id, jobStatus(base, metaPrefix .. ":dlq:" .. queue, id, now, held))
`;

/**
 * ARGV: bull prefix, meta prefix, now, held delay, queue ("" for all), status
 * ("" for any), upper bound (a ZREVRANGEBYLEX bound: "+" or "(<member>"),
 * limit, scan budget.
 * Walks the id index newest first from the bound and returns
 * `{ records, stale members, next bound or "" }`: it stops when `limit`
 * records matched, the index ended, or `budget` members were looked at (so
 * one call never blocks Redis for long; the caller continues from the bound).
 */
export const LIST_JOBS = `${PRELUDE}
local bullPrefix, metaPrefix, now, held = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local queue, status, upper, limit, budget = ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9])
local index = metaPrefix .. ":jobs"
if queue ~= "" then index = metaPrefix .. ":jobs:" .. queue end
local records, stale = {}, {}
local scanned = 0
while #records < limit and scanned < budget do
  local batch = rcall("ZREVRANGEBYLEX", index, upper, "-", "LIMIT", 0, 200)
  if #batch == 0 then return { records, stale, "" } end
  for _, member in ipairs(batch) do
    scanned = scanned + 1
    upper = "(" .. member
    local id, q = member, queue
    if queue == "" then
      local sep = string.find(member, ":", 1, true)
      id = string.sub(member, 1, sep - 1)
      q = string.sub(member, sep + 1)
    end
    local base = bullPrefix .. ":" .. q .. ":"
    if rcall("EXISTS", base .. id) == 0 then
      stale[#stale + 1] = member
    else
      local s = jobStatus(base, metaPrefix .. ":dlq:" .. q, id, now, held)
      if status == "" or s == status then
        records[#records + 1] = describeJob(bullPrefix, metaPrefix, q, id, s)
        if #records >= limit then break end
      end
    end
  end
end
return { records, stale, upper }
`;

/**
 * ARGV: bull prefix, meta prefix, now, held delay, queue names...
 * Returns counts in the order submitted, schedule, retries, active,
 * finished, failed, dlq, summed over the queues.
 */
export const COUNT_JOBS = `${PRELUDE}
local bullPrefix, metaPrefix, now, held = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local c = { 0, 0, 0, 0, 0, 0, 0 }
for i = 5, #ARGV do
  local q = ARGV[i]
  local base = bullPrefix .. ":" .. q .. ":"
  c[1] = c[1] + rcall("LLEN", base .. "wait") + rcall("LLEN", base .. "paused") + rcall("ZCARD", base .. "prioritized")
  c[4] = c[4] + rcall("LLEN", base .. "active")
  c[5] = c[5] + rcall("ZCARD", base .. "completed")
  local dead = 0
  for _, id in ipairs(rcall("SMEMBERS", metaPrefix .. ":dlq:" .. q)) do
    if rcall("ZSCORE", base .. "failed", id) then dead = dead + 1 end
  end
  c[7] = c[7] + dead
  c[6] = c[6] + rcall("ZCARD", base .. "failed") - dead
  for _, id in ipairs(rcall("ZRANGE", base .. "delayed", 0, -1)) do
    local s = delayedStatus(base, id, now, held)
    if s == "retries" then c[3] = c[3] + 1 elseif s == "schedule" then c[2] = c[2] + 1 else c[1] = c[1] + 1 end
  end
end
return c
`;

/**
 * ARGV: bull prefix, meta prefix, queue, ordering key, job id, held delay.
 * Puts the job in its ordering key's list, in id order: ids are
 * time-ordered, so the list follows enqueue order even when two processes
 * (or two relays) add their jobs in the other order. A job never goes
 * before a head that has already been released. Nothing happens when the
 * job is there already (a relay repeated after a crash adds it again).
 */
export const ORDER_PUSH = `
local rcall = redis.call
local bullPrefix, metaPrefix, queue, key, id, held = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local list = metaPrefix .. ":ord:" .. queue .. ":" .. key
rcall("SADD", metaPrefix .. ":ordkeys:" .. queue, key)
if rcall("LPOS", list, id) then return 0 end
local length = rcall("LLEN", list)
-- Walk from the tail (where a new job nearly always belongs) to the first smaller id.
local position = length
while position > 0 and rcall("LINDEX", list, position - 1) > id do position = position - 1 end
if position == length then
  rcall("RPUSH", list, id)
elseif position > 0 then
  rcall("LINSERT", list, "AFTER", rcall("LINDEX", list, position - 1), id)
else
  local head = rcall("LINDEX", list, 0)
  local base = bullPrefix .. ":" .. queue .. ":"
  local f = rcall("HMGET", base .. head, "delay", "atm")
  -- A head not added to BullMQ yet will be added held: it has not been released either.
  if rcall("EXISTS", base .. head) == 0 or (rcall("ZSCORE", base .. "delayed", head) and f[1] == held and (tonumber(f[2]) or 0) == 0) then
    rcall("LPUSH", list, id)
  else
    rcall("LINSERT", list, "AFTER", head, id)
  end
end
return 1
`;

/**
 * ARGV: bull prefix, meta prefix, queue, ordering key, held delay, cutoff id.
 * Drops ended jobs from the head of the key's list, and returns the new
 * head's id when it is still held back (so the caller releases it), else "".
 * A job enters the list just before it is added to BullMQ, so a head without
 * its job is on its way in, and waits; one older than the cutoff id was left
 * by a process that died in between, and is dropped. (Deleted jobs are taken
 * out of the list by whoever deletes them.)
 */
export const ORDER_ADVANCE = `
local rcall = redis.call
local bullPrefix, metaPrefix, queue, key, held, cutoff = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local base = bullPrefix .. ":" .. queue .. ":"
local list = metaPrefix .. ":ord:" .. queue .. ":" .. key
while true do
  local head = rcall("LINDEX", list, 0)
  if not head then
    rcall("SREM", metaPrefix .. ":ordkeys:" .. queue, key)
    return ""
  end
  local missing = rcall("EXISTS", base .. head) == 0
  if missing and head >= cutoff then return "" end
  if missing or rcall("ZSCORE", base .. "completed", head) or rcall("ZSCORE", base .. "failed", head) then
    rcall("LPOP", list)
  else
    if rcall("ZSCORE", base .. "delayed", head) then
      local f = rcall("HMGET", base .. head, "delay", "atm")
      if f[1] == held and (tonumber(f[2]) or 0) == 0 then return head end
    end
    return ""
  end
end
`;
