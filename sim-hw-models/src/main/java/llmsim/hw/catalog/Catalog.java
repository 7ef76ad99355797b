package llmsim.hw.catalog;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import llmsim.core.hw.Device;
import llmsim.core.hw.Host;
import llmsim.core.hw.FabricKind;
import llmsim.core.hw.Link;
import llmsim.core.hw.LinkKind;
import llmsim.core.hw.Network;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.util.Suggest;
import llmsim.hw.schema.SchemaValidator;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.Problem;
import llmsim.hw.yaml.TreeReader;

/**
 * The bundled hardware and model catalog, plus user files named wherever an id is accepted.
 * Lookups accept ids and aliases (peer tools' ids such as llm-analysis' {@code a100-sxm-80gb}).
 *
 * <p>The bundled catalog is read lazily: a lookup parses only the files that define the ids it needs
 * ({@link CatalogIndex}), and a listing or an unknown id parses the rest. Bundled files are not
 * schema-checked at run time: the build's tests check every one ({@link #loadBundled()}).
 */
public final class Catalog {
  static final String ROOT = "/llmsim/catalog/";

  private final Map<String, Device> devices = new TreeMap<>();
  private final Map<String, Binder.DefaultSystem> deviceDefaults = new TreeMap<>();
  private final Map<String, Host> hosts = new TreeMap<>();
  private final Map<String, Link> links = new TreeMap<>();
  private final Map<String, Node> systemNodes = new TreeMap<>();
  private final Map<String, ModelSpec> models = new TreeMap<>();
  private final Map<String, String> aliases = new LinkedHashMap<>();

  /** Where bundled ids are defined, while files remain unread; null when everything is loaded. */
  private final CatalogIndex index;
  private final Set<String> loadedFiles = new HashSet<>();
  /** --set changes by the id of the file they change, applied as each file is read. */
  private final Map<String, List<FieldOverride>> overrides;

  private Catalog() {
    this(null, Map.of());
  }

  private Catalog(CatalogIndex index, Map<String, List<FieldOverride>> overrides) {
    this.index = index;
    this.overrides = overrides;
  }

  private static volatile Catalog bundled;

  /** The catalog shipped in the jar (loaded once). */
  public static Catalog bundled() {
    Catalog c = bundled;
    if (c == null) {
      synchronized (Catalog.class) {
        if (bundled == null) {
          bundled = lazyBundled();
        }
        c = bundled;
      }
    }
    return c;
  }

  /** Files of the bundled catalog, relative to its root, as listed in its index. */
  public static List<String> bundledFiles() {
    return resourceText(ROOT + "index.txt").lines().map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
  }

  /** A fresh lazy bundled catalog: nothing parsed until asked for. */
  static Catalog lazyBundled() {
    return new Catalog(CatalogIndex.bundled(), Map.of());
  }

  /** Every bundled file, schema-checked and cross-checked, at once (the tests' way to load it). */
  static Catalog loadBundled() {
    Catalog c = new Catalog();
    List<Problem> problems = new ArrayList<>();
    List<Node> systems = new ArrayList<>();
    for (String file : bundledFiles()) {
      try {
        Node n = TreeReader.read("catalog/" + file, resourceText(ROOT + file));
        c.add(checked(n), systems);
      } catch (InputException e) {
        problems.addAll(e.problems());
      }
    }
    for (Node s : systems) {
      try {
        c.resolveSystemNode(s);
      } catch (InputException e) {
        problems.addAll(e.problems());
      }
    }
    if (!problems.isEmpty()) {
      throw new InputException(problems);
    }
    return c;
  }

  /** Schema-check a document against the schema its {@code kind} names. */
  public static Node checked(Node n) {
    Node kind = n.kind() == Node.Kind.OBJECT ? n.get("kind").orElse(null) : null;
    if (kind == null || !SchemaValidator.KINDS.contains(kind.asText())) {
      String allowed = String.join(", ", SchemaValidator.KINDS);
      throw new InputException(n.kind() != Node.Kind.OBJECT // a list or a bare value has no fields to miss
          ? n.problem("the file must be a mapping of fields (kind: one of " + allowed + "; then its fields), was "
              + n.kind().describe())
          : kind == null ? n.problem("missing required field 'kind' (one of " + allowed + ")")
          : kind.problem("'kind' must be one of " + allowed + ", was '" + kind.asText() + "'"));
    }
    SchemaValidator.forKind(kind.asText()).validate(n);
    return n;
  }

  private void add(Node n, List<Node> systems) {
    String id = n.str("id");
    switch (n.str("kind")) {
      case "device" -> {
        Device d = Binder.device(n);
        register(n, id, d.aliases(), devices.containsKey(id));
        devices.put(id, d);
        deviceDefaults.put(id, Binder.defaultSystem(n));
      }
      case "host" -> {
        Host h = Binder.host(n);
        register(n, id, h.aliases(), hosts.containsKey(id));
        hosts.put(id, h);
      }
      case "link" -> {
        Link l = Binder.link(n);
        register(n, id, l.aliases(), links.containsKey(id));
        links.put(id, l);
      }
      case "system" -> {
        register(n, id, n.strings("aliases"), systemNodes.containsKey(id));
        systemNodes.put(id, n);
        systems.add(n);
      }
      case "model" -> {
        ModelSpec m = Binder.model(n, !overrides.containsKey(id)); // a changed shape no longer matches the count
        register(n, id, m.aliases(), models.containsKey(id));
        models.put(id, m);
      }
      default -> throw new InputException(n.problem("a catalog file must be a device, host, link, system or model"));
    }
  }

  /** Lazy bundled catalog: parse, once each, the files that define {@code name} as an id or alias. */
  private void need(String name) {
    if (index != null && name != null) {
      for (String file : index.files(name)) {
        load(file);
      }
    }
  }

  /** Parse every bundled file not yet read, in index order (for listings and "did you mean"). */
  private void needAll() {
    if (index != null) {
      index.files().forEach(this::load);
    }
  }

  private void load(String file) {
    if (loadedFiles.add(file)) {
      Node n = TreeReader.read("catalog/" + file, resourceText(ROOT + file));
      List<FieldOverride> changes = overrides.get(n.optStr("id").orElse(""));
      add(changes == null ? n : FieldOverride.apply(n, changes), new ArrayList<>());
    }
  }

  private void register(Node n, String id, List<String> al, boolean duplicate) {
    if (duplicate) {
      throw new InputException(n.problemAtKey("id", "duplicate id '" + id + "'"));
    }
    for (String a : al) {
      String prev = aliases.putIfAbsent(a, id);
      if (prev != null && !prev.equals(id)) {
        throw new InputException(n.problemAtKey("aliases", "alias '" + a + "' already names '" + prev + "'"));
      }
    }
  }

  private SystemSpec resolveSystemNode(Node n) {
    List<Problem> problems = new ArrayList<>();
    Host host = lookup(n, "host", hosts, "host", Binder::host, problems);
    Device device = lookup(n, "device", devices, "device", Binder::device, problems);
    Link link = lookup(n, "host_link", links, "link", Binder::link, problems);
    Optional<Link> deviceLink = n.get("device_link").map(x -> lookup(n, "device_link", links, "link", Binder::link, problems));
    Optional<Node> net = n.get("network");
    Link nic = net.map(x -> lookup(x, "nic", links, "link", Binder::link, problems)).orElse(null);
    if (problems.isEmpty() && (host == null || device == null || link == null)) {
      throw new IllegalStateException("system " + n.str("id") + " resolved without a problem but with a part missing");
    }
    role(n, "host_link", link, EnumSet.of(LinkKind.INFINIBAND, LinkKind.ETHERNET),
        "a host link joins a GPU to its host (pcie, unified, nvlink as NVLink-C2C, infinity-fabric), not a network",
        problems);
    deviceLink.ifPresent(l -> role(n, "device_link", l, EnumSet.of(LinkKind.UNIFIED, LinkKind.INFINIBAND),
        "the device link joins the GPUs of a node (nvlink, infinity-fabric, pcie peer-to-peer, ethernet as on Gaudi)",
        problems));
    net.ifPresent(x -> role(x, "nic", nic, EnumSet.of(LinkKind.PCIE, LinkKind.UNIFIED, LinkKind.INFINITY_FABRIC),
        "a network joins nodes (infiniband, ethernet, nvlink as an NVLink switch network)", problems));
    memoryPool(n, device, link, problems);
    if (n.integer("device_count", 1) > 1 && n.get("fabric").isEmpty()) {
      // it was taken as switch (NVSwitch: every GPU to every other at full speed) without a word, which 8 cards
      // through the host are not; the catalog's own files write it out (TopologyCatalogTest)
      problems.add(n.require("device_count").problem("'fabric' is needed with device_count " + n.integer("device_count",
          1) + ": how the node's devices reach each other, switch (NVSwitch), mesh (xGMI) or pcie-host (no"
          + " peer-to-peer: through the host)"));
    }
    if (!problems.isEmpty()) {
      throw new InputException(problems);
    }
    double share = n.num("gpu_memory_share", link.unified() ? deviceDefaults.getOrDefault(device.id(),
        new Binder.DefaultSystem("", "", 1.0, "")).gpuMemoryShare() : 1.0);
    String shareSource = n.optStr("gpu_memory_share_source").orElse(link.unified()
        ? deviceDefaults.getOrDefault(device.id(), new Binder.DefaultSystem("", "", 1.0,
            "device from a file: all of its memory (give gpu_memory_share)")).shareSource()
        : "discrete device: all of its memory");
    Optional<Network> network = net.map(x -> new Network(nic, x.integer("nics_per_node"),
        x.bool("rail_optimized", false), x.str("source")));
    return Binder.guarded(n, () -> new SystemSpec(n.str("id"), n.str("name"), n.strings("aliases"), host, device,
        n.integer("device_count", 1), link, deviceLink, share, shareSource, Binder.price(n), n.integer("nodes", 1),
        FabricKind.fromKey(n.optStr("fabric").orElse("switch")), network));
  }

  /**
   * A unified link joins a GPU to the CPU whose memory it shares, and a catalog device says which kind it is by its
   * own system's host link: an M2 Ultra behind PCIe was given 192 GiB of its own beside the host's and copied its
   * weights over a link the chip does not have, and an H100 on a unified link copied nothing. A device from a file
   * has only its own default system to go by, so it is not checked.
   */
  private void memoryPool(Node n, Device device, Link link, List<Problem> problems) {
    Binder.DefaultSystem def = device == null || devices.get(device.id()) != device ? null
        : deviceDefaults.get(device.id());
    if (def == null || link == null) {
      return;
    }
    need(def.linkId());
    Link own = links.get(def.linkId());
    if (own != null && own.unified() != link.unified()) {
      problems.add(n.require("host_link").problem("'host_link' " + link.id() + " is of kind " + link.kind().key()
          + ", but device " + device.id() + (own.unified() ? " shares its host's memory" : " has memory of its own")
          + " (its own system's host link is " + own.id() + ", " + own.kind().key() + "): a unified link joins a GPU"
          + " to the CPU whose memory it shares, and only such a GPU"));
    }
  }

  /** A link in a role its kind cannot play (an InfiniBand NIC as the host link, ...) is a problem at its key. */
  private static void role(Node n, String key, Link link, EnumSet<LinkKind> refused, String why, List<Problem> problems) {
    if (link != null && refused.contains(link.kind())) {
      problems.add(n.require(key).problem("'" + key + "' " + link.id() + " is of kind " + link.kind().key() + ": " + why));
    }
  }

  /** A part named by catalog id or alias, or by a file relative to the naming file ({@link FileRefs}). */
  private <T> T lookup(Node n, String key, Map<String, T> table, String kind, java.util.function.Function<Node, T> bind,
      List<Problem> problems) {
    String id = n.str(key);
    if (!FileRefs.isFile(id)) {
      need(id);
    }
    if (FileRefs.isFile(id)) {
      try {
        return FileRefs.read(n, key, kind, bind);
      } catch (InputException e) {
        problems.addAll(e.problems());
        return null;
      }
    }
    T v = table.get(id);
    if (v == null) {
      String canonical = aliases.get(id);
      v = canonical == null ? null : table.get(canonical);
    }
    if (v == null) {
      needAll();
      problems.add(n.require(key).problem("unknown " + key.replace('_', ' ') + " '" + id + "'"
          + nearestNote(id, table.keySet())));
    }
    return v;
  }

  /**
   * As {@link #nearestNote}, each id or alias standing for a different entry: 'h100-sx' was offered 'h100-sxm, h100,
   * h100-sxm5', one device's id and two of its aliases, which read as three choices.
   */
  private String distinctNearestNote(String id, Collection<String> idsAndAliases) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    List<String> near = Suggest.nearest(id, idsAndAliases, idsAndAliases.size()).stream()
        .filter(n -> seen.add(aliases.getOrDefault(n, n))).limit(3).toList();
    return " (nearest: " + String.join(", ", near) + ")";
  }

  private static String nearestNote(String id, Collection<String> ids) {
    return " (nearest: " + String.join(", ", Suggest.nearest(id, ids, 3)) + ")";
  }

  /**
   * This bundled catalog with fields changed ({@code ID.FIELD=VALUE} each, see {@link FieldOverride}): a new
   * catalog whose changed files are checked and bound now, so that a bad change is reported before any work.
   */
  public Catalog withOverrides(List<String> assignments) {
    if (assignments.isEmpty()) {
      return this;
    }
    if (index == null) {
      throw new IllegalStateException("overrides apply to the bundled catalog");
    }
    Map<String, List<FieldOverride>> byTarget = new LinkedHashMap<>();
    for (String a : assignments) {
      FieldOverride o = FieldOverride.parse(this, a);
      byTarget.computeIfAbsent(o.target(), k -> new ArrayList<>()).add(o);
    }
    Catalog c = new Catalog(CatalogIndex.bundled(), byTarget);
    for (var e : byTarget.entrySet()) {
      try {
        synchronized (c) {
          c.need(e.getKey());
          if (c.systemNodes.containsKey(e.getKey())) {
            c.resolveSystemNode(c.systemNodes.get(e.getKey()));
          }
        }
      } catch (InputException ex) {
        throw FieldOverride.remap(e.getValue().stream().map(FieldOverride::flag).toList(), ex);
      }
    }
    return c;
  }

  /** The --set changes this catalog applies, in the order given per file. */
  public List<FieldOverride> overrides() {
    return overrides.values().stream().flatMap(List::stream).toList();
  }

  /** The kind of catalog file that defines {@code idOrAlias} (system, device, host, link, model), or null. */
  synchronized String kindOf(String idOrAlias) {
    String id = canonical(idOrAlias);
    return systemNodes.containsKey(id) ? "system" : devices.containsKey(id) ? "device" : hosts.containsKey(id) ? "host"
        : links.containsKey(id) ? "link" : models.containsKey(id) ? "model" : null;
  }

  /** Every id of the catalog (for "nearest" suggestions). */
  synchronized List<String> ids() {
    needAll();
    List<String> all = new ArrayList<>(systemNodes.keySet());
    all.addAll(devices.keySet());
    all.addAll(hosts.keySet());
    all.addAll(links.keySet());
    all.addAll(models.keySet());
    return all;
  }

  /** The bundled file that defines {@code id}, as read (before any override). */
  Node rawNode(String id) {
    for (String file : index.files(id)) {
      Node n = TreeReader.read("catalog/" + file, resourceText(ROOT + file));
      if (n.optStr("id").orElse("").equals(id)) {
        return n;
      }
    }
    throw new IllegalStateException("no bundled file defines '" + id + "'");
  }

  /** Every system: the explicit ones and each device on its default host. Sorted by id. */
  public synchronized List<SystemSpec> systems() {
    needAll();
    Map<String, SystemSpec> out = new TreeMap<>();
    for (Node n : systemNodes.values()) {
      SystemSpec s = resolveSystemNode(n);
      out.put(s.id(), s);
    }
    for (String id : devices.keySet()) {
      out.putIfAbsent(id, deviceSystem(devices.get(id)));
    }
    return List.copyOf(out.values());
  }

  private SystemSpec deviceSystem(Device d) {
    Binder.DefaultSystem def = deviceDefaults.get(d.id());
    need(def.hostId());
    need(def.linkId());
    Host h = hosts.get(def.hostId());
    Link l = links.get(def.linkId());
    if (h == null || l == null) {
      throw new IllegalStateException("device " + d.id() + " names unknown default host/link");
    }
    return new SystemSpec(d.id(), d.name() + " on " + h.name(), d.aliases(), h, d, 1, l, Optional.empty(),
        def.gpuMemoryShare(), def.shareSource(), Optional.empty());
  }

  /**
   * A system by id or alias, a device id (that device on its default host), or a path to a user
   * device or system file.
   */
  public synchronized SystemSpec system(String idOrPath, String flag) {
    return system(idOrPath, flag, false);
  }

  /**
   * As {@link #system(String, String)}, for a command that takes a host or link id as well ('hardware show'): an
   * unknown id is offered the nearest hosts and links too ('i9-13900k' was offered three systems, not the host
   * i9-13900ks).
   */
  public synchronized SystemSpec system(String idOrPath, String flag, boolean hostsAndLinks) {
    requireValue(idOrPath, flag, "a hardware id or a .yaml file");
    if (looksLikeFile(idOrPath)) {
      return userSystem(Path.of(idOrPath), flag);
    }
    need(idOrPath);
    String id = canonical(idOrPath);
    if (systemNodes.containsKey(id)) {
      return resolveSystemNode(systemNodes.get(id));
    }
    if (devices.containsKey(id)) {
      return deviceSystem(devices.get(id));
    }
    needAll();
    if (models.containsKey(id)) { // the two flags' values swapped: 'unknown hardware' offered three systems
      throw new InputException(new Problem(flag, 0, 0, "'" + idOrPath + "' is a model (`llmsim models show " + id
          + "`), not hardware: name a system or device here; `llmsim hardware list` shows them all"));
    }
    if (hosts.containsKey(id) || links.containsKey(id)) {
      // a host's or a link's id is known, but not as hardware to run on: 'unknown hardware' offered three systems
      boolean host = hosts.containsKey(id);
      List<String> on = systems().stream().filter(x -> host ? x.host().id().equals(id)
          : x.hostLink().id().equals(id) || x.deviceLink().map(l -> l.id().equals(id)).orElse(false)
              || x.network().map(net -> net.nic().id().equals(id)).orElse(false)).map(SystemSpec::id).limit(4).toList();
      throw new InputException(new Problem(flag, 0, 0, "'" + idOrPath + "' is a " + (host ? "host (the CPU and"
          + " memory beside the GPUs)" : "link") + ", not a system or device: llmsim runs the work on a system's GPUs"
          + (on.isEmpty() ? "" : "; systems with it: " + String.join(", ", on))
          + "; `llmsim hardware list` shows them all"));
    }
    List<String> known = new ArrayList<>(systemNodes.keySet());
    known.addAll(devices.keySet());
    // the aliases of systems and devices: a model's ('llama1-7b') was offered for 'lama-7b' as hardware
    if (hostsAndLinks) {
      known.addAll(hosts.keySet());
      known.addAll(links.keySet());
    }
    known.addAll(aliases.keySet().stream().filter(a -> systemNodes.containsKey(aliases.get(a))
        || devices.containsKey(aliases.get(a))
        || hostsAndLinks && (hosts.containsKey(aliases.get(a)) || links.containsKey(aliases.get(a)))).toList());
    throw new InputException(new Problem(flag, 0, 0, "unknown hardware '" + idOrPath + "'"
        + distinctNearestNote(idOrPath, known) + "; `llmsim hardware list` shows them all, or give a .yaml file"));
  }

  /** A device or system file; {@code flag} is what named it ("--hardware", "hardware show"), for a file of another kind. */
  private SystemSpec userSystem(Path path, String flag) {
    Node n = checked(TreeReader.readFile(path));
    switch (n.str("kind")) {
      case "device": {
        Device d = Binder.device(n);
        Binder.DefaultSystem def = Binder.defaultSystem(n);
        List<Problem> problems = new ArrayList<>();
        Node ds = n.require("default_system");
        Host h = lookup(ds, "host", hosts, "host", Binder::host, problems);
        Link l = lookup(ds, "host_link", links, "link", Binder::link, problems);
        if (!problems.isEmpty()) {
          throw new InputException(problems);
        }
        return new SystemSpec(d.id(), d.name() + " on " + h.name(), d.aliases(), h, d, 1, l, Optional.empty(),
            def.gpuMemoryShare(), def.shareSource(), Optional.empty());
      }
      case "system":
        return resolveSystemNode(n);
      default:
        throw new InputException(n.require("kind").problem(flag + " needs a device or system file, this is a "
            + n.str("kind") + " file"));
    }
  }

  /** A model by id or alias, a model YAML file, or a Hugging Face config.json. */
  public synchronized ModelSpec model(String idOrPath, String flag) {
    requireValue(idOrPath, flag, "a model id, a .yaml file or a config.json");
    if (looksLikeFile(idOrPath)) {
      Path p = Path.of(idOrPath);
      if (idOrPath.endsWith(".json")) {
        return HfConfigImporter.importConfig(TreeReader.readFile(p));
      }
      Node n = checked(TreeReader.readFile(p));
      if (!n.str("kind").equals("model")) {
        throw new InputException(n.require("kind").problem(flag + " needs a model file, this is a " + n.str("kind") + " file"));
      }
      return Binder.model(n);
    }
    need(idOrPath);
    ModelSpec m = models.get(canonical(idOrPath));
    if (m == null) {
      needAll();
      String id = canonical(idOrPath);
      if (systemNodes.containsKey(id) || devices.containsKey(id)) { // the two flags' values swapped
        throw new InputException(new Problem(flag, 0, 0, "'" + idOrPath + "' is hardware (`llmsim hardware show " + id
            + "`), not a model: name a model here; `llmsim models list` shows them all"));
      }
      List<String> known = new ArrayList<>(models.keySet());
      known.addAll(aliases.keySet().stream().filter(a -> models.containsKey(aliases.get(a))).toList());
      throw new InputException(new Problem(flag, 0, 0, "unknown model '" + idOrPath + "'"
          + distinctNearestNote(idOrPath, known) + "; `llmsim models list` shows them all, or give a .yaml or config.json"));
    }
    return m;
  }

  /**
   * The ids of {@code s} and its parts (device, host, links, NIC) that are this catalog's own entries. A file may
   * carry a catalog id ('id: h100-sxm' in a copy): a --set of that id changes the catalog's entry, never the file,
   * and '--hardware ./copy.yaml --set h100-sxm.memory.bandwidth_gb_per_s=1600' warned "override in effect" of a
   * run that used the file's figures unchanged.
   */
  public synchronized java.util.Set<String> ownIds(SystemSpec s) {
    java.util.Set<String> own = new java.util.HashSet<>();
    need(s.id());
    if (devices.get(s.device().id()) == s.device()) {
      own.add(s.device().id());
    }
    if (hosts.get(s.host().id()) == s.host()) {
      own.add(s.host().id());
    }
    for (Link l : s.deviceLink().map(l -> List.of(s.hostLink(), l)).orElse(List.of(s.hostLink()))) {
      if (links.get(l.id()) == l) {
        own.add(l.id());
      }
    }
    s.network().filter(n -> links.get(n.nic().id()) == n.nic()).ifPresent(n -> own.add(n.nic().id()));
    Node node = systemNodes.get(s.id());
    SystemSpec catalogs = node != null ? resolveSystemNode(node)
        : devices.get(s.id()) == s.device() ? deviceSystem(s.device()) : null;
    if (catalogs != null && (catalogs.equals(s) || catalogs.withNodes(s.nodes()).equals(s))) {
      own.add(s.id());
    }
    return own;
  }

  /** Whether {@code m} is this catalog's own model, not a file's that carries a catalog id (see {@link #ownIds}). */
  public synchronized boolean owns(ModelSpec m) {
    need(m.id());
    return models.get(m.id()) == m;
  }

  /**
   * Where {@code name} is a system's id or alias and not a device's, why it cannot be priced: a price is per device
   * (per GPU-hour, or per device bought), and an 8-GPU server's price taken as one GPU's would cost a job 8 times
   * over. Empty for any other name.
   */
  public synchronized Optional<String> systemNamedAsDevice(String name) {
    need(name);
    String id = canonical(name);
    Node n = systemNodes.get(id);
    if (n == null || devices.containsKey(id)) {
      return Optional.empty();
    }
    SystemSpec s = resolveSystemNode(n);
    return Optional.of("'" + name + "' is a system (" + s.deviceCount() + " x " + s.device().id() + (s.nodes() > 1
        ? " a node" : "") + "), and a price is per device: name its device, " + s.device().id());
  }

  /** Validate one user file of any kind; returns the kind and id on success. */
  public synchronized String validateFile(Path path) {
    Node n = checked(TreeReader.readFile(path));
    switch (n.str("kind")) {
      case "device" -> {
        userSystem(path, "--hardware");
        return "device " + n.str("id");
      }
      case "system" -> {
        resolveSystemNode(n);
        return "system " + n.str("id");
      }
      case "host" -> Binder.host(n);
      case "link" -> Binder.link(n);
      case "model" -> Binder.model(n);
      default -> { }
    }
    return n.str("kind") + " " + n.optStr("id").orElse(path.getFileName().toString());
  }

  private static void requireValue(String value, String flag, String expected) {
    if (value == null || value.isBlank()) {
      throw new InputException(new Problem(flag, 0, 0, "the value is empty; give " + expected));
    }
  }

  public synchronized String canonical(String idOrAlias) {
    need(idOrAlias);
    return aliases.getOrDefault(idOrAlias, idOrAlias);
  }

  /** Whether a --hardware or --model value names a file (a path or a .yaml/.json name) rather than an id. */
  public static boolean looksLikeFile(String s) {
    if (s.endsWith(".yaml") || s.endsWith(".yml") || s.endsWith(".json") || s.contains("/")) {
      return true;
    }
    try {
      return Files.exists(Path.of(s));
    } catch (java.nio.file.InvalidPathException e) {
      return false;
    }
  }

  public synchronized Collection<Device> devices() {
    needAll();
    return devices.values();
  }

  public synchronized Collection<Host> hosts() {
    needAll();
    return hosts.values();
  }

  public synchronized Collection<Link> links() {
    needAll();
    return links.values();
  }

  public synchronized Collection<ModelSpec> models() {
    needAll();
    return models.values();
  }

  /** The text of a resource bundled in the jar (an absolute name such as {@code /llmsim/prices/index.txt}). */
  public static String resourceText(String resource) {
    try (InputStream in = Catalog.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing bundled resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
