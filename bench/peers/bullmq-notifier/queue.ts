/**
 * The queue both halves of the BullMQ notifier share: its name, the Redis connection settings
 * BullMQ asks for, and the options every job is added with. Retries are BullMQ's own (attempts
 * with exponential backoff), as a team building on BullMQ would configure them; finished jobs are
 * removed so Redis holds only what is waiting.
 */
import { Redis } from 'ioredis';
import type { JobsOptions } from 'bullmq';

export const QUEUE_NAME = 'sms';

/** Environment every peer process reads (set by launch.ts). */
export function peerEnv(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`${name} is not set`);
  return v;
}

/** A Redis connection as BullMQ requires for blocking commands (no per-request retry limit). */
export function redisConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

/** Options of every job: 10 attempts, 250 ms doubling backoff (a 429 waits 0.25 s, then 0.5 s, …), removed once done. */
export const JOB_OPTIONS: JobsOptions = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 250 },
  removeOnComplete: true,
  removeOnFail: { count: 1_000 },
};
