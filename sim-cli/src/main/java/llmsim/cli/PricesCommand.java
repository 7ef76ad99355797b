package llmsim.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import llmsim.core.cost.Money;
import llmsim.core.cost.Offer;
import llmsim.hw.catalog.Catalog;
import llmsim.hw.prices.PriceCatalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code llmsim hardware prices [DEVICE...]}: the price catalog. */
@Command(name = "prices", description = {
    "List the published prices of catalog devices: per GPU-hour by provider, and purchase prices.",
    "GPU-hour prices are on-demand, spot or reserved; each price has the date it was read and its source "
        + "(--format json shows the source URL). Prices are data, never "
        + "fetched: simulate, compare and advise take --price DEVICE=1.89usd/h or a prices .yaml (`hardware schema prices`) "
        + "over them, and convert currencies only at a --rate you give.",
    "Example: llmsim hardware prices h100-sxm a100-sxm-80gb"})
final class PricesCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin Output output;

  @Parameters(arity = "0..*", paramLabel = "DEVICE", description = "Devices (ids or aliases) to list; default: all.")
  List<String> devices;

  @Override
  public Integer call() {
    Catalog c = Catalog.bundled();
    // a system's prices are its device's: 'hardware prices m2-ultra' (or 13900ks-h100, hgx-h100-8x) was taken and
    // listed nothing, the offers being filed under the device; an unknown id is refused with the nearest ones
    List<String> ids = devices == null ? null : devices.stream().map(d -> c.system(d, "DEVICE").device().id())
        .distinct().toList();
    List<Offer> offers = PriceCatalog.bundled().offers().stream()
        .filter(o -> ids == null || ids.contains(o.deviceId()))
        .sorted(Comparator.comparing(Offer::deviceId).thenComparing(Offer::kind).thenComparing(Offer::currency)
            .thenComparingDouble(Offer::amount).thenComparing(Offer::provider))
        .toList();
    TextTable t = new TextTable(List.of("device", "pricing", "provider", "price", "min GPUs", "date", "what"));
    List<Map<String, Object>> json = new ArrayList<>();
    for (Offer o : offers) {
      t.row(List.of(o.deviceId(), o.kind().key(), o.provider(), Money.format(o.amount(), o.currency())
          + (o.kind().hourly() ? " per GPU-hour" : " per device"), Integer.toString(o.minGpus()), o.date(), o.note()));
      json.add(json(o));
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(Output.print(output.format, t, json));
    if (output.format == Format.table) {
      out.println();
      List<String> none = ids == null ? List.of() : ids.stream()
          .filter(id -> offers.stream().noneMatch(o -> o.deviceId().equals(id))).toList();
      if (!none.isEmpty()) {
        out.println("No price in the catalog for " + String.join(", ", none) + ": give --price DEVICE=AMOUNTCUR/h (rent)"
            + " or DEVICE=AMOUNTCUR (buy) to cost a job on it.");
      }
      out.println("Prices change: each is as read on its date (sources: --format json). Override with --price.");
    }
    return 0;
  }

  static Map<String, Object> json(Offer o) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("device", o.deviceId());
    m.put("pricing", o.kind().key());
    m.put("provider", o.provider());
    m.put("amount", o.amount());
    m.put("currency", o.currency());
    m.put("per", o.kind().hourly() ? "gpu_hour" : "device");
    m.put("min_gpus", o.minGpus());
    m.put("date", o.date());
    m.put("source", o.source());
    m.put("note", o.note());
    return m;
  }
}
