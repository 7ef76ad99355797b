package llmsim.hw.prices;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import llmsim.core.cost.Offer;
import llmsim.core.cost.OfferKind;
import llmsim.core.cost.PriceBook;
import llmsim.core.hw.Device;
import llmsim.core.util.Suggest;
import llmsim.hw.catalog.Catalog;
import llmsim.hw.schema.SchemaValidator;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.Problem;
import llmsim.hw.yaml.TreeReader;

/**
 * Prices: the bundled price files ({@code /llmsim/prices/}, one per provider), a user's price files, and the
 * purchase prices device files carry. Every offer names a catalog device, checked when read, and has its date and
 * source. Read only when a job is priced; never fetched.
 */
public final class PriceCatalog {
  private PriceCatalog() {}

  static final String ROOT = "/llmsim/prices/";

  private static volatile PriceBook bundled;

  /** The bundled price files and the device files' prices, read once. */
  public static PriceBook bundled() {
    PriceBook b = bundled;
    if (b == null) {
      synchronized (PriceCatalog.class) {
        if (bundled == null) {
          bundled = load(Catalog.bundled());
        }
        b = bundled;
      }
    }
    return b;
  }

  /** Files of the bundled price catalog, as listed in its index. */
  public static List<String> bundledFiles() {
    return Catalog.resourceText(ROOT + "index.txt").lines().map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
  }

  static PriceBook load(Catalog c) {
    List<Offer> offers = new ArrayList<>();
    List<Problem> problems = new ArrayList<>();
    for (String file : bundledFiles()) {
      try {
        offers.addAll(bind(checked(TreeReader.read("prices/" + file, Catalog.resourceText(ROOT + file))), c));
      } catch (InputException e) {
        problems.addAll(e.problems());
      }
    }
    if (!problems.isEmpty()) {
      throw new InputException(problems);
    }
    offers.addAll(deviceFilePrices(c.devices()));
    return new PriceBook(offers);
  }

  /** A user's price file: schema-checked, every device named checked against the catalog. */
  public static List<Offer> read(Path file) {
    return read(file, List.of());
  }

  /** As {@link #read(Path)}, a device of the user's own files ({@code own}: the run's) priceable too. */
  public static List<Offer> read(Path file, java.util.Collection<Device> own) {
    return bind(checked(TreeReader.readFile(file)), Catalog.bundled(), own);
  }

  private static Node checked(Node n) {
    SchemaValidator.forKind("prices").validate(n);
    return n;
  }

  /** The offers of a checked prices document; an unknown device is reported at its line with the nearest ids. */
  static List<Offer> bind(Node n, Catalog c) {
    return bind(n, c, List.of());
  }

  private static List<Offer> bind(Node n, Catalog c, java.util.Collection<Device> own) {
    String provider = n.str("provider");
    List<String> deviceIds = new ArrayList<>(c.devices().stream().map(Device::id).toList());
    own.forEach(d -> deviceIds.add(d.id()));
    List<Offer> out = new ArrayList<>();
    List<Problem> problems = new ArrayList<>();
    for (Node o : n.require("offers").items()) {
      Node dev = o.require("device");
      String id = c.canonical(dev.asText());
      java.util.Optional<String> system = deviceIds.contains(id) ? java.util.Optional.empty()
          : c.systemNamedAsDevice(dev.asText());
      if (system.isPresent()) {
        problems.add(dev.problem(system.get()));
        continue;
      }
      if (!deviceIds.contains(id)) {
        problems.add(dev.problem("unknown device '" + dev.asText() + "' (nearest: "
            + String.join(", ", Suggest.nearest(dev.asText(), deviceIds, 3)) + "); `llmsim hardware list` shows them"));
        continue;
      }
      try {
        out.add(new Offer(id, provider, OfferKind.fromKey(o.str("pricing")), o.num("amount"), o.str("currency"),
            o.integer("min_gpus", 1), o.str("date"), o.str("source"), o.optStr("note").orElse("")));
      } catch (IllegalArgumentException e) {
        problems.add(o.problem(e.getMessage()));
      }
    }
    if (!problems.isEmpty()) {
      throw new InputException(problems);
    }
    return out;
  }

  /**
   * Device files' own {@code price}: a purchase price (provider {@code retail}) or an hourly rate (provider
   * {@code device-file}), each with the date and source the device file gives.
   */
  static List<Offer> deviceFilePrices(java.util.Collection<Device> devices) {
    List<Offer> out = new ArrayList<>();
    for (Device d : devices) {
      d.price().ifPresent(p -> out.add(new Offer(d.id(), p.perHour() ? "device-file" : "retail",
          p.perHour() ? OfferKind.ON_DEMAND : OfferKind.PURCHASE, p.amount(), p.currency(), 1, p.date(), p.source(),
          "from the device file")));
    }
    return out;
  }
}
