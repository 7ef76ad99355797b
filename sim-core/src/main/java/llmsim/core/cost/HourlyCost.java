package llmsim.core.cost;

/**
 * What one GPU of a device costs per hour under a {@link CostBasis}, and where that came from; or, when it cannot
 * be known, why not ({@code perGpuHour} NaN and {@code missing} saying what to give).
 *
 * @param source the offer or flag and its date and source, and any exchange rate applied
 */
public record HourlyCost(double perGpuHour, String currency, String source, String missing) {
  public static HourlyCost unknown(String currency, String why) {
    return new HourlyCost(Double.NaN, currency, "", why);
  }

  public boolean known() {
    return !Double.isNaN(perGpuHour);
  }
}
