// mat_file.cpp: numeric variables from MATLAB v5 .mat files through Debian's libmatio (for the
// AFLW2000-3D ground truth that `coif eval pose` reads: Pose_Para, pt3d_68).

#include "CVision.h"

#include <matio.h>

extern "C" int32_t cv_mat_read(const char *path, const char *name, double *out, int32_t capacity, int32_t *out_rows,
                               int32_t *out_cols) {
    if (!path || !name) return -1;
    mat_t *file = Mat_Open(path, MAT_ACC_RDONLY);
    if (!file) return -1;
    matvar_t *var = Mat_VarRead(file, name);
    if (!var) {
        Mat_Close(file);
        return -2;
    }
    int32_t result = -3;
    if (var->rank == 2 && !var->isComplex && var->data &&
        (var->class_type == MAT_C_DOUBLE || var->class_type == MAT_C_SINGLE)) {
        const size_t count = var->dims[0] * var->dims[1];
        for (size_t i = 0; i < count && i < size_t(capacity > 0 ? capacity : 0) && out; ++i)
            out[i] = var->class_type == MAT_C_DOUBLE ? static_cast<const double *>(var->data)[i]
                                                     : double(static_cast<const float *>(var->data)[i]);
        if (out_rows) *out_rows = int32_t(var->dims[0]);
        if (out_cols) *out_cols = int32_t(var->dims[1]);
        result = int32_t(count);
    }
    Mat_VarFree(var);
    Mat_Close(file);
    return result;
}
