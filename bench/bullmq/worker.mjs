// A BullMQ worker that runs each job as warmpool's agent does: a child process (`true`), one at a
// time, on the queue QUEUE (default "bench").
import { Worker } from "bullmq";
import { execFile } from "node:child_process";

const connection = { url: process.env.REDIS_URL };
const worker = new Worker(process.env.QUEUE || "bench", () => new Promise((resolve, reject) =>
  execFile("true", (err) => (err ? reject(err) : resolve({ ok: true })))), { connection, concurrency: 1 });
worker.on("ready", () => console.log("ready"));
process.on("SIGTERM", async () => { await worker.close(); process.exit(0); });
