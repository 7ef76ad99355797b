package llmsim.core.cost;

/**
 * A whole job in time, GPU-hours, energy and money.
 *
 * @param wallSeconds wall-clock time of the job
 * @param gpuHours every GPU of the system for the wall time
 * @param energyKwh the GPUs' power x their count x the wall time: an estimate at the device's TDP (host, cooling and
 *     idle draw not counted)
 * @param cost in {@code currency}; NaN when no price is known ({@code hourly.missing()} says why)
 * @param costPerMillionTokens cost over the job's tokens (processed for training, generated for inference), per 1e6
 */
public record JobCost(double wallSeconds, double gpuHours, double energyKwh, double cost, String currency,
    double costPerMillionTokens, HourlyCost hourly) {

  /**
   * Cost a job of {@code tokens} tokens that runs {@code wallSeconds} on {@code gpus} GPUs drawing {@code watts} each,
   * at {@code hourly} per GPU-hour.
   */
  public static JobCost of(double wallSeconds, int gpus, double watts, double tokens, HourlyCost hourly) {
    double gpuHours = wallSeconds * gpus / 3600;
    double kwh = watts * gpus * wallSeconds / 3.6e6;
    double cost = gpuHours * hourly.perGpuHour();
    return new JobCost(wallSeconds, gpuHours, kwh, cost, hourly.currency(), cost / (tokens / 1e6), hourly);
  }
}
