// A BullMQ worker that runs each job as warmpool's agent does: a child process (`true`).
import { Worker } from "bullmq";
import { execFile } from "node:child_process";

const connection = { url: process.env.REDIS_URL };
const worker = new Worker("bench", () => new Promise((resolve, reject) =>
  execFile("true", (err) => (err ? reject(err) : resolve({ ok: true })))), { connection, concurrency: 1 });
worker.on("ready", () => console.log("ready"));
process.on("SIGTERM", async () => { await worker.close(); process.exit(0); });
