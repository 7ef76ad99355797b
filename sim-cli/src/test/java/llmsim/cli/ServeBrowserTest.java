package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import llmsim.hw.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * llmsim serve in a real headless Chromium: load the page, move the batch slider, see the number and the roofline
 * change, keep a screenshot in target/. Skipped where Debian's chromium and chromium-driver are not installed
 * (.ci/run installs them).
 */
class ServeBrowserTest {
  static File firstExisting(List<String> paths) {
    return paths.stream().map(File::new).filter(File::canExecute).findFirst().orElse(null);
  }

  /** What a test does with the page once its first result is shown. */
  interface PageCheck {
    void check(ChromeDriver browser, WebDriverWait wait) throws Exception;
  }

  /** Starts a server and a headless Chromium on its page, waits for the first result, runs {@code check}. */
  static void onThePage(PageCheck check) throws Exception {
    File chromium = firstExisting(List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"));
    File driver = firstExisting(List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"));
    assumeTrue(chromium != null && driver != null,
        "chromium and chromedriver are not installed (apt-get install -y chromium chromium-driver); skipping the browser test");
    try (WebServer server = WebServer.start("127.0.0.1", 0)) {
      ChromeOptions o = new ChromeOptions();
      o.setBinary(chromium);
      o.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1800");
      ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver).usingAnyFreePort().build();
      ChromeDriver browser = new ChromeDriver(service, o);
      try {
        browser.get(server.uri().toString());
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(90));
        // the page redraws its numbers when a result comes in: an element found just before may be gone when read
        wait.ignoring(StaleElementReferenceException.class);
        wait.until(b -> !b.findElements(By.cssSelector("#n-tokens_per_s .v")).isEmpty());
        check.check(browser, wait);
      } finally {
        browser.quit();
      }
    }
  }

  @Test
  void movingTheBatchSlider_changesTokensPerSecondAndTheRoofline() throws Exception {
    Path shots = Path.of("target", "screenshots");
    Files.createDirectories(shots);
    onThePage((browser, wait) -> {
      String before = browser.findElement(By.cssSelector("#n-tokens_per_s .v")).getText();
      String rooflineBefore = browser.findElement(By.id("roofline")).getAttribute("innerHTML");
      assertThat(before).endsWith("tokens/s");
      assertThat(rooflineBefore).contains("<svg").contains("decode, batch 1");

      WebElement batch = browser.findElement(By.id("batch"));
      batch.click();
      batch.sendKeys(Keys.HOME); // batch 1
      for (int i = 0; i < 4; i++) {
        batch.sendKeys(Keys.ARROW_RIGHT); // batch 2, 4, 8, 16
      }
      wait.until(b -> b.findElement(By.id("batch-out")).getText().equals("16"));
      wait.until(b -> !b.findElement(By.cssSelector("#n-tokens_per_s .v")).getText().equals(before)
          && "simulated".equals(b.findElement(By.id("status")).getText().split(" ")[0]));
      String after = browser.findElement(By.cssSelector("#n-tokens_per_s .v")).getText();
      assertThat(number(after)).isGreaterThan(number(before)); // 16 sequences share each weight read
      assertThat(browser.findElement(By.id("roofline")).getAttribute("innerHTML")).isNotEqualTo(rooflineBefore)
          .contains("batch 16");
      assertThat(browser.findElement(By.id("error")).isDisplayed()).isFalse();
      ((JavascriptExecutor) browser).executeScript("window.scrollTo(0, 0)");
      Files.write(shots.resolve("serve-batch16.png"), browser.getScreenshotAs(OutputType.BYTES));
    });
  }

  @Test
  void aRunThatCannotHappen_showsWhy_andNoNumbersOrChartsOfTheRunBefore() throws Exception {
    // QLoRA's nf4 base is bitsandbytes', with no Metal kernels: refused on an M2 Ultra. The page showed the error
    // above the previous run's tokens/s, explanation and charts, which read as this run's
    onThePage((browser, wait) -> {
      JavascriptExecutor js = browser;
      js.executeScript("document.getElementById('hardware').value = 'm2-ultra';"
          + " const t = document.getElementById('task'); t.value = 'finetune-qlora'; t.dispatchEvent(new Event('input'));");
      wait.until(b -> b.findElement(By.id("status")).getText().equals("error 400"));
      assertThat(browser.findElement(By.id("error")).getText()).contains("nf4");
      assertThat(browser.findElements(By.cssSelector(".num"))).isEmpty();
      for (String id : List.of("why", "roofline", "memory-chart", "timeline")) {
        assertThat(browser.findElement(By.id(id)).getText()).as(id).isEmpty();
        assertThat(browser.findElement(By.id(id)).getAttribute("innerHTML")).as(id).doesNotContain("<svg");
      }
      js.executeScript("const t = document.getElementById('task'); t.value = 'finetune-lora';"
          + " t.dispatchEvent(new Event('input'));"); // a run again, and the error goes
      wait.until(b -> !b.findElements(By.cssSelector("#n-tokens_per_s .v")).isEmpty());
      assertThat(browser.findElement(By.id("error")).isDisplayed()).isFalse();
    });
  }

  @Test
  void theContextSlider_endsAtTheModelsMaxContext_lessTheGeneratedTokensForInference() throws Exception {
    // the slider ran to 32,768 tokens for every model: past 1,024 a LLaMA-7B inference was refused ('prompt +
    // generated tokens (2048 + 128) exceed llama-7b's max context of 2048 tokens'), and the top six steps were dead
    Catalog c = Catalog.bundled();
    int generated = Integer.parseInt(llmsim.core.scenario.ScenarioKey.GENERATE_TOKENS.defaultText().orElseThrow());
    onThePage((browser, wait) -> {
      JavascriptExecutor js = browser;
      WebElement context = browser.findElement(By.id("context"));
      for (String[] run : new String[][] {{"llama-7b", "inference"}, {"llama-7b", "train"}, {"llama3-8b", "train"},
          {"llama3-8b", "inference"}}) {
        js.executeScript("document.getElementById('model').value = arguments[0];"
            + " const t = document.getElementById('task'); t.value = arguments[1]; t.dispatchEvent(new Event('input'));",
            run[0], run[1]);
        int max = c.model(run[0], "--model").maxContext() - (run[1].equals("inference") ? generated : 0);
        int top = Integer.highestOneBit(max);
        context.click();
        context.sendKeys(Keys.END);
        String shown = String.format(java.util.Locale.US, "%,d", top);
        wait.until(b -> b.findElement(By.id("context-out")).getText().equals(shown));
        wait.until(b -> b.findElement(By.id("status")).getText().startsWith("simulated")
            || b.findElement(By.id("error")).isDisplayed());
        assertThat(browser.findElement(By.id("error")).isDisplayed()).as(String.join(" ", run) + ": "
            + browser.findElement(By.id("error")).getText()).isFalse();
      }
    });
  }

  @Test
  void theDeviceSliders_reachTheDocumentedX01AndX10_andTheRunIsScaledByThem() throws Exception {
    // serve --help and the README promise 'x0.1 to x10 of the catalog's'; the sliders stopped at x0.25 and x4
    String low = String.format(java.util.Locale.US, "%.2f", ScaledHardware.MIN_FACTOR);
    String high = String.format(java.util.Locale.US, "%.2f", ScaledHardware.MAX_FACTOR);
    onThePage((browser, wait) -> {
      for (String id : List.of("bandwidth", "compute", "memory")) {
        WebElement slider = browser.findElement(By.id(id));
        slider.click();
        slider.sendKeys(Keys.END);
        wait.until(b -> b.findElement(By.id(id + "-out")).getText().equals("10"));
        wait.until(b -> b.findElement(By.id("status")).getText().contains("x" + high + " " + id));
        slider.sendKeys(Keys.HOME);
        wait.until(b -> b.findElement(By.id(id + "-out")).getText().equals("0.1"));
        wait.until(b -> b.findElement(By.id("status")).getText().contains("x" + low + " " + id));
        assertThat(browser.findElement(By.id("error")).isDisplayed()).as(id).isFalse();
      }
    });
  }

  @Test
  void aClusterTemplate_getsANodesSlider_andTheRunShowsItsGpus_aSingleSystemNone() throws Exception {
    // h100-cluster ran its one-node default, its name saying 'size with --nodes/--gpus', a flag the page lacked
    int perNode = Catalog.bundled().system("h100-cluster", "--hardware").deviceCount();
    onThePage((browser, wait) -> {
      JavascriptExecutor js = browser;
      js.executeScript("const h = document.getElementById('hardware'); h.value = 'h100-cluster';"
          + " h.dispatchEvent(new Event('input'));");
      WebElement nodes = browser.findElement(By.id("nodes"));
      wait.until(b -> nodes.isDisplayed());
      nodes.click();
      nodes.sendKeys(Keys.HOME);
      nodes.sendKeys(Keys.ARROW_RIGHT);
      nodes.sendKeys(Keys.ARROW_RIGHT); // 4 nodes
      wait.until(b -> b.findElement(By.id("nodes-out")).getText().equals("4"));
      wait.until(b -> !b.findElements(By.id("n-gpus")).isEmpty() && b.findElement(By.cssSelector("#n-gpus .v"))
          .getText().startsWith((4 * perNode) + " GPUs (4 nodes x " + perNode + ")"));
      js.executeScript("const h = document.getElementById('hardware'); h.value = 'm2-ultra';"
          + " h.dispatchEvent(new Event('input'));");
      wait.until(b -> b.findElement(By.id("status")).getText().startsWith("simulated Apple M2 Ultra"));
      assertThat(nodes.isDisplayed()).isFalse();
      assertThat(browser.findElements(By.id("n-gpus"))).isEmpty();
      assertThat(browser.findElement(By.id("error")).isDisplayed()).isFalse();
    });
  }

  @Test
  void aWeightFormatChosenForInference_isNotSentToTraining_whichHoldsItsWeightsAtTheComputePrecision() throws Exception {
    // int4 weights picked for inference, then task train: every run was refused ('--weights: does not apply to
    // train ...; leave it out') until the student found the weights menu and set it back
    onThePage((browser, wait) -> {
      JavascriptExecutor js = browser;
      js.executeScript("const w = document.getElementById('weights'); w.value = 'int4';"
          + " w.dispatchEvent(new Event('input'));");
      wait.until(b -> b.findElement(By.id("status")).getText().startsWith("simulated")
          && b.findElement(By.cssSelector("#n-memory .v")).getText().length() > 0);
      js.executeScript("const t = document.getElementById('task'); t.value = 'train';"
          + " t.dispatchEvent(new Event('input'));");
      wait.until(b -> !b.findElement(By.id("status")).getText().startsWith("simulating")
          && !b.findElements(By.id("n-mfu")).isEmpty() && b.findElements(By.id("n-tpot")).isEmpty()
          || b.findElement(By.id("error")).isDisplayed());
      assertThat(browser.findElement(By.id("error")).isDisplayed()).as(browser.findElement(By.id("error")).getText())
          .isFalse();
      assertThat(browser.findElement(By.id("weights")).isEnabled()).isFalse();
      js.executeScript("const t = document.getElementById('task'); t.value = 'finetune-lora';"
          + " t.dispatchEvent(new Event('input'));");
      assertThat(browser.findElement(By.id("weights")).isEnabled()).isTrue(); // LoRA's frozen base takes a format
      assertThat(browser.findElement(By.id("weights")).getAttribute("value")).isEqualTo("int4");
    });
  }

  static double number(String s) {
    return Double.parseDouble(s.replaceAll("[^0-9.]", ""));
  }
}
