// A burst on BullMQ, as Burst.java measures one on warmpool: node burst.mjs N WORKER_PID...
// N `true` jobs added with addBulk in chunks of 100 on the queue QUEUE, which the worker processes
// (worker.mjs, concurrency 1 each; bench/bullmq/burst starts them) are already waiting on. A
// warm-up of min(N, 200) jobs goes first, unmeasured, as warmpool's burst has its warm-up. Prints
// one JSON line of figures: jobs/s from the first add to the last job finished (the jobs' own
// timestamp and finishedOn), queue wait (processedOn - timestamp, ms), and CPU ms per job of the
// workers, of the `true`s they reaped, of Redis and of this client (/proc/PID/stat).
import { Queue } from "bullmq";
import { readFileSync } from "node:fs";

const connection = { url: process.env.REDIS_URL };
const n = Number(process.argv[2] || 2000);
const workers = process.argv.slice(3).map(Number);
const chunk = 100;
const queue = new Queue(process.env.QUEUE, { connection });
const redis = await queue.client;
const redisPid = Number(/process_id:(\d+)/.exec(await redis.info("server"))[1]);

/** utime + stime (children: cutime + cstime) of a process, in ms (clock ticks of 10 ms, as Harness.cpuMs reads them). */
function cpuMs(pid, children) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const u = children ? 13 : 11;
  return (Number(f[u]) + Number(f[u + 1])) * 10;
}
const sum = (pids, children) => pids.reduce((s, pid) => s + cpuMs(pid, children), 0);
const cpu = () => [sum(workers, false), sum(workers, true), cpuMs(redisPid, false), cpuMs(process.pid, false)];

/** Adds `count` jobs in chunks; their ids. */
async function add(count) {
  const ids = [];
  for (let i = 0; i < count; i += chunk) {
    const jobs = Array.from({ length: Math.min(chunk, count - i) }, () => ({
      name: "true",
      data: {},
      // keep finished jobs (as warmpool keeps them for its retention period), so reading them back races nothing
      opts: { removeOnComplete: { age: 3600 }, removeOnFail: { age: 3600 } },
    }));
    for (const job of await queue.addBulk(jobs)) ids.push(job.id);
  }
  return ids;
}

/** Waits (polling every 20 ms, as Burst.java waits) until `total` jobs of the queue finished. */
async function finished(total) {
  for (;;) {
    const c = await queue.getJobCounts("completed", "failed");
    if (c.failed > 0) throw new Error(`${c.failed} BullMQ jobs failed`);
    if (c.completed >= total) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const warmup = Math.min(n, 200);
await add(warmup);
await finished(warmup);

await redis.config("RESETSTAT");
const cpu0 = cpu();
const t0 = process.hrtime.bigint();
const ids = new Set(await add(n));
await finished(warmup + n);
const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
const cpu1 = cpu();
let commands = 0;
for (const m of (await redis.info("commandstats")).matchAll(/calls=(\d+)/g)) commands += Number(m[1]);

const jobs = (await queue.getJobs(["completed"], 0, -1)).filter((j) => ids.has(j.id));
if (jobs.length !== n) throw new Error(`read back ${jobs.length} of ${n} jobs`);
const waits = jobs.map((j) => j.processedOn - j.timestamp).sort((a, b) => a - b);
// the nearest rank, as Figures.p
const p = (pct) => waits[Math.max(0, Math.min(n - 1, Math.ceil((pct / 100) * n) - 1))];
const first = Math.min(...jobs.map((j) => j.timestamp));
const last = Math.max(...jobs.map((j) => j.finishedOn));
const perJob = (i) => (cpu1[i] - cpu0[i]) / n;
console.log(JSON.stringify({
  "jobs": n,
  "workers": workers.length,
  "warmupJobs": warmup,
  "jobsPerSecond": (n * 1000) / Math.max(1, last - first),
  "wallJobsPerSecond": (n * 1000) / wallMs,
  "queueWait.p50": p(50),
  "queueWait.p99": p(99),
  "cpuMsPerJob.workers": perJob(0),
  "cpuMsPerJob.jobProcesses": perJob(1),
  "cpuMsPerJob.redis": perJob(2),
  "cpuMsPerJob.client": perJob(3),
  "redis.commandsPerJob": commands / n,
}));
await queue.close();
