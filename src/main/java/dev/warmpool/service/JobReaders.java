package dev.warmpool.service;

import dev.warmpool.config.AuthConfig;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.Job;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/**
 * Who reads a job's details ({@code warmpool.auth.job-details}): by default its submitter, the
 * members of its tenant's group and admins; everyone else who may see the job sees it without
 * its config and args values and log tail ({@link Secrets#withoutDetails}), and is refused its
 * logs. A job's output is where a secret it was given ends up printed, so hiding env values
 * alone does not keep them from other tenants.
 */
@ApplicationScoped
public class JobReaders {
    private final boolean everyone;

    @Inject
    public JobReaders(WarmpoolConfig config) {
        this(config.auth().jobDetails() == AuthConfig.JobDetails.EVERYONE);
    }

    JobReaders(boolean everyone) {
        this.everyone = everyone;
    }

    /**
     * Whether {@code caller} reads the job's details: an admin, its submitter, or a member of its
     * tenant when that tenant is a group (a caller whose roles or groups name it).
     */
    public boolean mayRead(Job job, Caller caller) {
        if (everyone || caller.admin() || caller.name().equals(job.submittedBy())) {
            return true;
        }
        String tenant = job.tenant();
        return tenant != null
                && !tenant.equals(job.submittedBy())
                && caller.roles().contains(tenant);
    }

    /** The job as {@code caller} may see it: env values as {@link Secrets} allows, details as {@link #mayRead}. */
    public Job shownTo(Job job, Caller caller) {
        Job shown = Secrets.shownTo(job, caller);
        return mayRead(job, caller) ? shown : Secrets.withoutDetails(shown);
    }

    public List<Job> shownTo(List<Job> jobs, Caller caller) {
        return jobs.stream().map(j -> shownTo(j, caller)).toList();
    }

    /** The job as a reader everyone shares sees it (the dashboard's feed): no env values, details only when everyone reads them. */
    public Job shownToAll(Job job) {
        return everyone ? Secrets.redacted(job) : Secrets.withoutDetails(job);
    }

    /** Refuses (403) {@code what} of a job whose details the caller may not read. */
    public void checkMayRead(Job job, Caller caller, String what) {
        if (!mayRead(job, caller)) {
            throw new Refusal(
                            Refusal.Kind.FORBIDDEN,
                            "forbidden",
                            "Forbidden",
                            "The " + what + " of job " + job.id() + " are for its submitter '" + job.submittedBy()
                                    + "', its tenant's group and admins (warmpool.auth.job-details=submitter): a job's "
                                    + "output may hold what it was given.")
                    .with("submittedBy", job.submittedBy());
        }
    }
}
