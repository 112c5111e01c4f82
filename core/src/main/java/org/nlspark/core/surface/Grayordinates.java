package org.nlspark.core.surface;

import java.io.Serializable;
import java.util.List;
import org.nlspark.core.InvalidInputException;

/**
 * The brain models of a CIFTI-2 dense file (DESIGN §9): which grayordinate (matrix column) is
 * which cortex vertex or subcortical voxel. nlspark lays the grayordinates out on a <em>full
 * space</em>: the models in file order, a surface model as every vertex of its surface ({@code
 * SurfaceNumberOfVertices}, so vertex numbers are the mesh's), a voxel model as its voxels. That
 * space is the mesh the study runs on (each cortex's mesh, then the voxels as points), and the
 * columns the file holds are its mask.
 *
 * @param models the brain models in file order, covering columns 0 .. columns() - 1
 * @param volumeDims the voxel grid of the voxel models (i, j, k sizes), or null without any
 * @param ijkToXyz the grid's 4 × 4 voxel-to-mm matrix, row-major, or null without voxel models
 */
public record Grayordinates(List<Model> models, int[] volumeDims, double[] ijkToXyz)
    implements Serializable {

  /** The CIFTI structures nlspark joins to a mesh, and the option that names each mesh. */
  public static final String CORTEX_LEFT = "CIFTI_STRUCTURE_CORTEX_LEFT";
  public static final String CORTEX_RIGHT = "CIFTI_STRUCTURE_CORTEX_RIGHT";

  /**
   * One brain model: {@code count} columns from {@code offset}, each a vertex of a surface of
   * {@code surfaceVertices} ({@code indices[n]}) or a voxel ({@code indices[3n .. 3n + 2]}: i,
   * j, k).
   */
  public record Model(String structure, boolean surface, int offset, int count,
      int surfaceVertices, int[] indices) implements Serializable {
    /** The model's slots in the full space: every vertex of its surface, or its voxels. */
    public int fullSize() {
      return surface ? surfaceVertices : count;
    }

    /** The full-space slot of the model's n-th column, counted from the model's first slot. */
    public int slot(int n) {
      return surface ? indices[n] : n;
    }

    /** The structure's short name: {@code CORTEX_LEFT}, {@code THALAMUS_RIGHT}. */
    public String shortName() {
      return structure.replaceFirst("^CIFTI_STRUCTURE_", "");
    }
  }

  /** The number of grayordinates (matrix columns). */
  public int columns() {
    Model last = models.get(models.size() - 1);
    return last.offset() + last.count();
  }

  /** The size of the full space (see the class comment). */
  public int fullSize() {
    int n = 0;
    for (Model m : models) {
      n += m.fullSize(); // checked to fit an int when built
    }
    return n;
  }

  /** The full-space slot of every column. */
  public int[] slotOfColumn() {
    int[] slot = new int[columns()];
    int base = 0;
    for (Model m : models) {
      for (int n = 0; n < m.count(); n++) {
        slot[m.offset() + n] = base + m.slot(n);
      }
      base += m.fullSize();
    }
    return slot;
  }

  /** The first full-space slot of each model, in model order. */
  public int[] modelBases() {
    int[] base = new int[models.size()];
    for (int i = 1; i < base.length; i++) {
      base[i] = base[i - 1] + models.get(i - 1).fullSize();
    }
    return base;
  }

  /**
   * What a full-space slot is, as Workbench numbers it: {@code CORTEX_LEFT vertex 26} (the
   * vertex of its own surface) or {@code THALAMUS_LEFT voxel (30, 41, 28)}.
   */
  public String place(int slot) {
    int base = 0;
    for (Model m : models) {
      if (slot < base + m.fullSize()) {
        int n = slot - base;
        return m.shortName() + (m.surface() ? " vertex " + n : " voxel (" + m.indices()[3 * n]
            + ", " + m.indices()[3 * n + 1] + ", " + m.indices()[3 * n + 2] + ")");
      }
      base += m.fullSize();
    }
    throw new IllegalArgumentException("[BUG] slot " + slot + " of " + fullSize());
  }

  /** The number of voxel grayordinates (subcortical structures). */
  public int voxels() {
    int n = 0;
    for (Model m : models) {
      n += m.surface() ? 0 : m.count();
    }
    return n;
  }

  /** The mm coordinates of a voxel model's n-th voxel, through {@link #ijkToXyz}. */
  public double[] voxelCoordinates(Model m, int n) {
    double[] xyz = new double[3];
    for (int r = 0; r < 3; r++) {
      xyz[r] = ijkToXyz[4 * r] * m.indices()[3 * n] + ijkToXyz[4 * r + 1] * m.indices()[3 * n + 1]
          + ijkToXyz[4 * r + 2] * m.indices()[3 * n + 2] + ijkToXyz[4 * r + 3];
    }
    return xyz;
  }

  /**
   * Whether {@code other} has the same brain models (structures, columns, vertices and voxels),
   * so that its columns are these columns.
   */
  public boolean sameModels(Grayordinates other) {
    if (other.models.size() != models.size()
        || !java.util.Arrays.equals(volumeDims, other.volumeDims)
        || !java.util.Arrays.equals(ijkToXyz, other.ijkToXyz)) {
      return false;
    }
    for (int i = 0; i < models.size(); i++) {
      Model a = models.get(i);
      Model b = other.models.get(i);
      if (!a.structure().equals(b.structure()) || a.surface() != b.surface()
          || a.offset() != b.offset() || a.count() != b.count()
          || a.surfaceVertices() != b.surfaceVertices()
          || !java.util.Arrays.equals(a.indices(), b.indices())) {
        return false;
      }
    }
    return true;
  }

  /** The models in one line, for messages: {@code CORTEX_LEFT 29696 of 32492 vertices, ...}. */
  public String describe() {
    StringBuilder s = new StringBuilder();
    for (Model m : models) {
      s.append(s.length() == 0 ? "" : ", ").append(m.shortName()).append(' ').append(m.count())
          .append(m.surface() ? " of " + m.surfaceVertices() + " vertices" : " voxels");
    }
    return s.toString();
  }

  /**
   * Checks the models tile the columns in order and every index is in range.
   *
   * @throws InvalidInputException naming the file and the first model that does not
   */
  public Grayordinates {
    models = List.copyOf(models);
    if (models.isEmpty()) {
      throw new InvalidInputException("A CIFTI file must have at least one brain model");
    }
    int next = 0;
    long full = 0;
    java.util.Set<Long> voxelsSeen = new java.util.HashSet<>(); // across models: one volume
    for (Model m : models) {
      full += m.fullSize();
      if (full > Integer.MAX_VALUE - 8) {
        throw new InvalidInputException("The CIFTI brain models cover more than 2^31 vertices"
            + " and voxels; the XML is corrupt");
      }
      String what = "The CIFTI brain model " + m.shortName();
      if (m.offset() != next || m.count() < 1) {
        throw new InvalidInputException(what + " covers columns " + m.offset() + " .. "
            + (m.offset() + m.count() - 1) + ", but the models must tile the columns in order"
            + " from " + next);
      }
      next += m.count();
      if (m.surface()) {
        if (m.indices().length != m.count()) {
          throw new InvalidInputException(what + " lists " + m.indices().length
              + " vertices but counts " + m.count());
        }
        boolean[] seen = new boolean[Math.max(0, m.surfaceVertices())];
        for (int v : m.indices()) {
          if (v < 0 || v >= m.surfaceVertices() || seen[v]) {
            throw new InvalidInputException(what + " lists vertex " + v + (v >= 0
                && v < m.surfaceVertices() ? " twice" : ", outside its surface of "
                + m.surfaceVertices() + " vertices"));
          }
          seen[v] = true;
        }
      } else {
        if (volumeDims == null || ijkToXyz == null) {
          throw new InvalidInputException(what + " has voxels, but the file has no <Volume>"
              + " (its grid and transform)");
        }
        if (m.indices().length != 3 * m.count()) {
          throw new InvalidInputException(what + " lists " + m.indices().length / 3
              + " voxels but counts " + m.count());
        }
        for (int n = 0; n < m.count(); n++) {
          for (int d = 0; d < 3; d++) {
            int v = m.indices()[3 * n + d];
            if (v < 0 || v >= volumeDims[d]) {
              throw new InvalidInputException(what + " lists voxel (" + m.indices()[3 * n] + ", "
                  + m.indices()[3 * n + 1] + ", " + m.indices()[3 * n + 2] + "), outside its"
                  + " grid of " + volumeDims[0] + " x " + volumeDims[1] + " x " + volumeDims[2]);
            }
          }
          long key = ((long) m.indices()[3 * n] * volumeDims[1] + m.indices()[3 * n + 1])
              * volumeDims[2] + m.indices()[3 * n + 2];
          if (!voxelsSeen.add(key)) {
            throw new InvalidInputException(what + " lists voxel (" + m.indices()[3 * n] + ", "
                + m.indices()[3 * n + 1] + ", " + m.indices()[3 * n + 2] + "), which a brain"
                + " model lists already; each voxel is one grayordinate");
          }
        }
      }
    }
  }
}
