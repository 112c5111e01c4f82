package org.nlspark.core.glm;

/**
 * What a glm run is asked for besides its data, design and contrasts (DESIGN §9): the draw
 * options, the backend, the memory budget and {@code --demean}. Every front end builds one (the
 * command line and the Java and Python APIs through {@code NlsparkOptions}); {@link
 * GlmAnalysis#prepare(org.nlspark.core.data.DataMatrix, GlmDesign, GlmContrasts, GlmRequest)}
 * validates it with the model. The steps taken on the prepared analysis (tail approximation,
 * whole maps, variance smoothing) are not settings of the model and stay its methods.
 *
 * @param options the draws: errors (null for {@link GlmRun#defaultErrors}), blocks, replicates,
 *     tail, FWER, seed
 * @param backend cpu, auto or gpu; null for cpu
 * @param memoryBudgetGb an explicit budget, or null to measure
 * @param demean centre the data and the design's columns and drop the intercept first
 *     ({@link GlmDemean}, PALM's {@code -demean})
 */
public record GlmRequest(GlmRun.Options options, String backend, Double memoryBudgetGb,
    boolean demean) {

  /** The backend asked for, cpu when none was. */
  public String backendRequested() {
    return backend == null ? "cpu" : backend;
  }
}
