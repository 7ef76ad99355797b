package llmsim.core.task;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A linear layer a LoRA adapter is attached to. {@code q,v} is PEFT's default for LLaMA-family models;
 * {@code all} (PEFT's "all-linear", torchtune's attention modules plus apply_lora_to_mlp) is every projection.
 * GATE exists only in a gated MLP (SwiGLU); UP and DOWN are fc1 and fc2 of a plain one.
 */
public enum LoraTarget {
  Q, K, V, O, GATE, UP, DOWN;

  /** PEFT's default: the query and value projections. */
  public static final Set<LoraTarget> DEFAULT = java.util.Collections.unmodifiableSet(EnumSet.of(Q, V));

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** "q,v", "all", or any comma-separated subset of q, k, v, o, gate, up, down. */
  public static Set<LoraTarget> parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("all") || t.equals("all-linear")) {
      return java.util.Collections.unmodifiableSet(EnumSet.allOf(LoraTarget.class));
    }
    EnumSet<LoraTarget> out = EnumSet.noneOf(LoraTarget.class);
    for (String part : t.split(",")) {
      String p = part.trim();
      LoraTarget target = null;
      for (LoraTarget l : values()) {
        if (l.key().equals(p) || (l.key() + "_proj").equals(p)) {
          target = l;
        }
      }
      if (target == null && (p.equals("all") || p.equals("all-linear"))) {
        throw new IllegalArgumentException("'" + p + "' is every layer and goes alone: give all, or a comma-separated"
            + " list of " + String.join(", ", keys()));
      }
      if (target == null) {
        throw new IllegalArgumentException("'" + p + "' is not a LoRA target: give all, or a comma-separated list of "
            + String.join(", ", keys()));
      }
      if (!out.add(target)) { // q,v,q, or q and q_proj: a typo, not a second adapter
        throw new IllegalArgumentException("names " + target.key() + " twice; name each layer once");
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("names no layer: give all, or a comma-separated list of "
          + String.join(", ", keys()));
    }
    return java.util.Collections.unmodifiableSet(out);
  }

  public static List<String> keys() {
    List<String> k = new ArrayList<>();
    for (LoraTarget l : values()) {
      k.add(l.key());
    }
    return k;
  }

  /** "q,v": the set as a key would write it. */
  public static String describe(Set<LoraTarget> targets) {
    return targets.size() == values().length ? "all"
        : String.join(",", targets.stream().map(LoraTarget::key).toList());
  }
}
