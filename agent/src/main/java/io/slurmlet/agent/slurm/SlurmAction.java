package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.slurm.DaemonActions.Enable;
import io.slurmlet.agent.slurm.DaemonActions.NoteInvocations;
import io.slurmlet.agent.slurm.DaemonActions.Reconfigure;
import io.slurmlet.agent.slurm.DaemonActions.Reconfigured;
import io.slurmlet.agent.slurm.DaemonActions.RecordOwed;
import io.slurmlet.agent.slurm.DaemonActions.Restart;
import io.slurmlet.agent.slurm.DaemonActions.Start;
import io.slurmlet.agent.slurm.FileWrites.FilesWritten;
import io.slurmlet.agent.slurm.FileWrites.WriteFiles;
import io.slurmlet.agent.slurm.RestartDropIn.RestartDropIns;
import io.slurmlet.agent.slurm.Retiring.Retire;

/**
 * What the slurm step does, in the order {@link SlurmDiff#diff} lists them: each part of the diff
 * holds its own actions ({@link Retiring}, {@link FileWrites}, {@link DaemonActions}, {@link
 * RestartDropIn}), and only {@link SlurmStep#act} does them.
 */
sealed interface SlurmAction extends Action
        permits Retire,
                RecordOwed,
                WriteFiles,
                NoteInvocations,
                FilesWritten,
                RestartDropIns,
                Enable,
                Start,
                Restart,
                Reconfigured,
                Reconfigure {}
