// Submit then wait, one job after another, as a client sees it; prints JSON figures (ms).
import { Queue, QueueEvents } from "bullmq";

const connection = { url: process.env.REDIS_URL };
const n = Number(process.argv[2] || 200);
const queue = new Queue("bench", { connection });
const events = new QueueEvents("bench", { connection });
await events.waitUntilReady();
const times = [];
for (let i = 0; i < n + 20; i++) {
  const t0 = process.hrtime.bigint();
  // Keep finished jobs a while, as warmpool keeps them for its retention period: with
  // removeOnComplete: true the worker may delete the job before waitUntilFinished's isFinished
  // reads it, which then rejects with "Missing key for job ... isFinished" (seen under load).
  const job = await queue.add("true", {}, { removeOnComplete: { age: 3600, count: 1000 } });
  await job.waitUntilFinished(events, 30000);
  if (i >= 20) times.push(Number(process.hrtime.bigint() - t0) / 1e6); // the first 20 warm up
}
times.sort((a, b) => a - b);
const at = (p) => times[Math.min(times.length - 1, Math.round((p / 100) * (times.length - 1)))];
console.log(JSON.stringify({ "p50": at(50), "p99": at(99) }));
await queue.close();
await events.close();
