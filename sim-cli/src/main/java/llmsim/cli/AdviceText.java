package llmsim.cli;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import llmsim.core.cost.Money;
import llmsim.core.util.Units;

/** The advice in words: the winner and what it beats, or what comes closest and which constraint binds. */
final class AdviceText {
  private AdviceText() {}

  /** "4x NVIDIA A100 SXM4 80GB for 19.2 h: 190.00 USD". */
  static String describe(Advisor.Option o) {
    return o.system().totalDevices() + "x " + o.system().device().name() + " (" + o.system().id() + ", "
        + o.result().task().plan().describe() + o.numerics() + ", batch " + o.batch() + ") for "
        + Units.duration(o.seconds()) + ": " + Money.format(o.cost(), o.job().currency());
  }

  /** "yes", "over deadline", "over budget" or both. */
  static String meets(Advisor.Option o, AdviseCommand.Constraints c) {
    boolean late = o.seconds() > c.deadlineSeconds();
    boolean dear = o.cost() > c.budget();
    return late && dear ? "over deadline and budget" : late ? "over deadline" : dear ? "over budget" : "yes";
  }

  /** {@code moreGpus}: whether a higher --max-gpus would size some system to more GPUs than were tried. */
  static String explain(List<Advisor.Option> ranked, Advisor.Result res, AdviseCommand.Constraints c, boolean own,
      boolean moreGpus) {
    if (ranked.isEmpty()) {
      return "No option could be ranked: none has a price and fits (see 'not ranked' below).";
    }
    Advisor.Option fastest = res.options().stream().min(Comparator.comparingDouble(Advisor.Option::seconds)
        .thenComparingDouble(Advisor.Option::cost)).orElseThrow();
    Advisor.Option cheapest = res.options().get(0);
    Advisor.Option first = ranked.get(0);
    if (c.meets(first)) {
      StringBuilder b = new StringBuilder((own ? "Run on your own " : "Rent ") + describe(first) + ", at "
          + Money.format(first.job().hourly().perGpuHour(), first.job().currency()) + " per GPU-hour");
      b.append(c.deadlineSeconds() < Double.POSITIVE_INFINITY || c.budget() < Double.POSITIVE_INFINITY
          ? ": the cheapest that meets " + constraints(c) + "." : ": the cheapest option.");
      if (fastest != first) {
        b.append(" The fastest, ").append(describe(fastest)).append('.');
      }
      if (cheapest != first) {
        b.append(" The cheapest overall, ").append(describe(cheapest)).append(", misses ")
            .append(meets(cheapest, c).replace("over ", "the ")).append('.');
      }
      if (!first.numerics().isEmpty()) {
        b.append(" Its numerics (").append(first.numerics().substring(2)).append(") are not the ones asked for: fp8"
            + " training and int8/int4 weights change the model's numbers, so check its quality; give --precision or"
            + " --weights to keep yours.");
      }
      return b.toString();
    }
    if (fastest.seconds() > c.deadlineSeconds()) {
      return String.format(Locale.US, "Nothing meets %s. The deadline binds: the fastest option, %s, takes %.1fx the"
          + " deadline of %s; %s would be needed.", constraints(c), describe(fastest),
          fastest.seconds() / c.deadlineSeconds(), Units.duration(c.deadlineSeconds()), moreGpus
              ? "more GPUs (--max-gpus) or a smaller job"
              // single-GPU systems come in no larger size: --max-gpus would change nothing
              : "a system of more or faster GPUs (--hardware), or a smaller job")
          // with no option within the budget either, more time alone would not do: the budget binds as well
          + (cheapest.cost() > c.budget() ? String.format(Locale.US, " The budget binds too: the cheapest option, %s,"
              + " is %s over the budget of %s.", describe(cheapest), Money.format(cheapest.cost() - c.budget(),
                  cheapest.job().currency()), Money.format(c.budget(), cheapest.job().currency())) : "");
    }
    Advisor.Option inTime = res.options().stream().filter(o -> o.seconds() <= c.deadlineSeconds()).findFirst()
        .orElseThrow();
    return String.format(Locale.US, "Nothing meets %s. The budget binds: the cheapest option%s, %s, is %s over the"
        + " budget of %s.", constraints(c), c.deadlineSeconds() < Double.POSITIVE_INFINITY ? " that meets the deadline"
        : "", describe(inTime),
        Money.format(inTime.cost() - c.budget(), inTime.job().currency()), Money.format(c.budget(),
            inTime.job().currency()));
  }

  private static String constraints(AdviseCommand.Constraints c) {
    boolean d = c.deadlineSeconds() < Double.POSITIVE_INFINITY;
    boolean b = c.budget() < Double.POSITIVE_INFINITY;
    return (d ? "the deadline of " + Units.duration(c.deadlineSeconds()) : "") + (d && b ? " and " : "")
        + (b ? "the budget" : "");
  }
}
