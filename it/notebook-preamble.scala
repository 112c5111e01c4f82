// Prepended by it/run-notebooks.sh before the cells of a Databricks notebook, so the notebook
// runs unchanged in Spark's own REPL (spark-shell's interpreter) on local Spark. Stands in for
// the two Databricks globals the notebooks use: display(...) and dbutils.widgets. Not shipped.

/** Databricks' display(df): here the first rows as a plain table on stdout. */
def display(df: org.apache.spark.sql.Dataset[_]): Unit = df.toDF().show(50, false)

/** Databricks' dbutils, only the widget calls; NB_<name> in the environment overrides a default. */
object dbutils {
  object widgets {
    private val values = scala.collection.mutable.LinkedHashMap[String, String]()
    def text(name: String, defaultValue: String, label: String = ""): Unit =
      values(name) = sys.env.getOrElse("NB_" + name, defaultValue)
    def get(name: String): String = values.getOrElse(name,
      throw new NoSuchElementException(
        s"Cannot read widget '$name': no dbutils.widgets.text call defined it"))
  }
}

/**
 * Marks the end of each cell. The runner appends mark(n) as the cell's last statement and
 * then calls require(n): a cell that fails to compile or throws never reaches mark(n), and the
 * REPL exits with status 1 instead of going on to the next cell.
 */
object NotebookCells {
  @volatile private var reached = 0
  def mark(cell: Int): Unit = reached = cell
  def require(cell: Int, notebook: String): Unit = {
    if (reached != cell) {
      Console.err.println(s"NOTEBOOK FAILED: $notebook, cell $cell did not complete")
      Console.out.flush()
      System.exit(1)
    }
    println(s"[notebook] $notebook: cell $cell done")
  }
}
