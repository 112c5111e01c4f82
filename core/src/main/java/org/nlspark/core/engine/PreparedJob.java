package org.nlspark.core.engine;

import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.BackendKind;
import org.nlspark.core.backend.BackendResolver;
import org.nlspark.core.backend.GpuProbe;
import org.nlspark.core.backend.GpuProbes;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.memory.BootstrapMemory;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.MemoryProbe;
import org.nlspark.core.resample.ResamplingPlan;

/**
 * Everything decided before the first replicate, shared by every engine: inputs validated,
 * backend resolved (run-or-raise), budget measured, the bootstrap preflight passed, and the
 * replicates fixed. A refusal here leaves nothing computed and nothing written.
 */
public final class PreparedJob {
  public final JobSpec spec;
  public final JobInputs inputs;
  public final Backend backend;
  public final MemoryBudget budget;
  public final ResamplingPlan resampling;
  public final double preflightGb;

  private PreparedJob(JobSpec spec, JobInputs inputs, Backend backend, MemoryBudget budget,
      ResamplingPlan resampling, double preflightGb) {
    this.spec = spec;
    this.inputs = inputs;
    this.backend = backend;
    this.budget = budget;
    this.resampling = resampling;
    this.preflightGb = preflightGb;
  }

  public static PreparedJob prepare(JobSpec spec, JobInputs inputs, int workers) {
    return prepare(spec, inputs, workers, GpuProbes.system(), MemoryProbe.system());
  }

  /**
   * @param workers tiles that may hold a replicate window at once (sets the preflight's window)
   */
  public static PreparedJob prepare(JobSpec spec, JobInputs inputs, int workers, GpuProbe gpu,
      MemoryProbe memory) {
    inputs.validate(spec.analysis());
    Backend backend = BackendResolver.resolve(spec.backend(), gpu);
    if (backend.kind() == BackendKind.GPU && !spec.precisionExplicit()) {
      spec = spec.toBuilder().precision(Precision.FLOAT32).build(); // DESIGN: float32 by default on GPU
    }
    MemoryBudget budget = MemoryBudget.resolve(spec.memoryBudgetGb(), backend.kind(), memory,
        false);
    double required = 0;
    if (spec.analysis() == Analysis.BOOTSTRAP) {
      required = BootstrapMemory.preflight(inputs.voxels(), spec.replicates(), spec.confidence(),
          spec.saveSamples(), workers, budget);
    }
    return new PreparedJob(spec, inputs, backend, budget, ResamplingPlan.forJob(spec, inputs),
        required);
  }
}
