package llmsim.core.util;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** "Did you mean" for near misses, by edit distance. */
public final class Suggest {
  private Suggest() {}

  /** Up to {@code limit} candidates nearest to {@code wrong}, nearest first, ties by name. */
  public static List<String> nearest(String wrong, Collection<String> candidates, int limit) {
    String w = wrong.toLowerCase(Locale.ROOT);
    return candidates.stream()
        .distinct()
        .sorted(Comparator.<String>comparingInt(c -> score(w, c.toLowerCase(Locale.ROOT))).thenComparing(c -> c))
        .limit(limit)
        .toList();
  }

  /** The single nearest candidate if it is close enough to be a typo, else null. */
  public static String closeMatch(String wrong, Collection<String> candidates) {
    List<String> n = nearest(wrong, candidates, 1);
    if (n.isEmpty()) {
      return null;
    }
    String best = n.get(0);
    String w = wrong.toLowerCase(Locale.ROOT);
    String b = best.toLowerCase(Locale.ROOT);
    if (b.length() >= 3 && (w.startsWith(b) || b.startsWith(w))) {
      return best;
    }
    int d = distance(w, b);
    return d <= Math.max(2, Math.max(wrong.length(), best.length()) / 3) ? best : null;
  }

  private static int score(String w, String c) {
    int d = distance(w, c);
    // a candidate that contains the word (or the reverse) is closer than its edit distance says
    if (c.contains(w) || w.contains(c)) {
      d = Math.min(d, Math.abs(c.length() - w.length()) / 2);
    }
    return d;
  }

  public static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
